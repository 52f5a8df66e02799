/**
 * How long a server asked us to wait before retrying, from its response headers.
 *
 * `retry-after-ms` (OpenAI's non-standard header, milliseconds) wins over `Retry-After`, which is
 * either delta-seconds or an HTTP date (RFC 9110 §10.2.3). A date needs the current wall-clock
 * time, which the caller passes in; a date in the past means "now" (0). Anything unparsable, or a
 * negative value, is ignored.
 */
export function parseRetryAfter(get: (name: string) => string | null | undefined, wallNowMs: number): number | undefined {
  const ms = get('retry-after-ms');
  if (ms !== null && ms !== undefined) {
    const value = Number(ms.trim());
    if (ms.trim() !== '' && Number.isFinite(value) && value >= 0) return Math.round(value);
  }
  const header = get('retry-after');
  if (header === null || header === undefined) return undefined;
  const text = header.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // Only accept something that looks like a date, so that e.g. "-5" is not parsed as the year -5.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - wallNowMs);
}
