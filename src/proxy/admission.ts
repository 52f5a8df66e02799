/**
 * Which requests `agentctl proxy` answers at all. It spends the user's upstream key on whatever it
 * forwards, so a web page must not be able to drive it:
 *
 * - DNS rebinding: a page on `evil.example` whose name is made to resolve to 127.0.0.1 reaches the
 *   proxy under that name. So the `Host` a request names must be an IP address, `localhost`, the
 *   name the proxy listens on (`--host`), or one the user allows (`--allow-host`): a page always
 *   sends its own name, and a page cannot choose the `Host` header.
 * - Cross-site requests: a page may send a "simple" request (a `text/plain` POST, a GET) to
 *   127.0.0.1 without asking. A browser marks every request a page makes (`Origin` on anything but
 *   a plain GET, `Sec-Fetch-Site` on all of them in current browsers) and no API client sends them,
 *   so such a request is refused whatever it says.
 *
 * The port is not checked: a port forward (`docker -p 9000:8377`) changes it, and neither attack
 * needs it.
 */
import { isIP } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';

/** Why a request is refused: an HTTP 403 with this error code and message. */
export interface Refusal {
  code: 'agentctl_forbidden_host' | 'agentctl_forbidden_origin';
  message: string;
}

/** The host names (besides IP addresses and `localhost`) requests may name: the listening name and the allowed ones. */
export function allowedHosts(listenHost: string, allowed: readonly string[]): ReadonlySet<string> {
  return new Set([listenHost, ...allowed].map(hostName).filter((name) => name !== ''));
}

/** Why this request is refused, or undefined when it may be answered. */
export function refusal(headers: IncomingHttpHeaders, hosts: ReadonlySet<string>): Refusal | undefined {
  const origin = headers.origin;
  const site = headers['sec-fetch-site'];
  if (origin !== undefined || (site !== undefined && site !== 'none')) {
    return {
      code: 'agentctl_forbidden_origin',
      message: `agentctl proxy: refused a request from a web page (${origin === undefined ? `Sec-Fetch-Site: ${shown(site)}` : `Origin: ${shown(origin)}`}); it answers programs, not browsers`,
    };
  }
  const host = headers.host ?? '';
  const name = hostName(host);
  if (name === '' || !(isIP(name) !== 0 || name === 'localhost' || hosts.has(name))) {
    return {
      code: 'agentctl_forbidden_host',
      message: `agentctl proxy: refused a request for host '${shown(host)}': not a name of this proxy (an IP address, localhost, or a name allowed with --allow-host)`,
    };
  }
  return undefined;
}

/** The name in a `Host` header or a host option, without port or brackets, lower case: `[::1]:8377` → `::1`. */
function hostName(host: string): string {
  const trimmed = host.trim().toLowerCase();
  const bracketed = /^\[([^\]]*)\](?::\d*)?$/.exec(trimmed);
  if (bracketed !== null) return bracketed[1] as string;
  // A bare IPv6 address (a --host value) has colons of its own.
  if (isIP(trimmed) === 6) return trimmed;
  return trimmed.replace(/:\d*$/, '').replace(/\.$/, '');
}

/** A header value as the refusal (and the line on standard error) shows it: printable ASCII, bounded. */
function shown(value: string | undefined): string {
  const text = (value ?? '').replace(/[^\x20-\x7e]/g, '?');
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}
