import { useEffect, useState } from 'react';

/**
 * Milliseconds since `key` last changed, ticking (every 100 ms) while `active` once `after` ms have
 * passed: how long the run has been waiting for the model or a tool. Nothing ticks before `after`,
 * so waits that end sooner — a replay answered from its tape, thousands a second — cost no frame.
 * Wall-clock time for the eyes only; the run itself never reads it.
 */
export function useElapsed(key: number, active: boolean, after = 0): number {
  const [elapsed, setElapsed] = useState(0);
  useEffect(() => {
    setElapsed(0);
    if (!active) return undefined;
    const start = performance.now();
    const tick = (): void => setElapsed(performance.now() - start);
    let ticking: NodeJS.Timeout | undefined;
    const first = setTimeout(() => {
      tick();
      ticking = setInterval(tick, 100);
    }, after === 0 ? 100 : after);
    return () => {
      clearTimeout(first);
      clearInterval(ticking);
    };
  }, [key, active, after]);
  return elapsed;
}
