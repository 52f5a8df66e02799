import { useEffect, useState } from 'react';

/**
 * Milliseconds since `key` last changed, ticking while `active`: how long the run has been waiting
 * for the model or a tool. Wall-clock time for the eyes only; the run itself never reads it.
 */
export function useElapsed(key: number, active: boolean): number {
  const [since, setSince] = useState(() => performance.now());
  const [now, setNow] = useState(since);
  useEffect(() => {
    const start = performance.now();
    setSince(start);
    setNow(start);
    if (!active) return undefined;
    const timer = setInterval(() => setNow(performance.now()), 100);
    return () => clearInterval(timer);
  }, [key, active]);
  return Math.max(0, now - since);
}
