import { shortened } from './edge-errors';
import { parseHost } from '../config/host-header';

/**
 * Who may call the API (pure rules; the middleware is host-origin-check.ts). Two threats:
 * - DNS rebinding: a page on evil.example resolves its own name to 127.0.0.1 (or an intranet
 *   address) and calls the service as same-origin; its requests carry `Host: evil.example`.
 * - Cross-site calls from a browser page: they carry that page's `Origin`.
 * A request must name an allowed host; a browser's Origin must be an allowed host's (any port,
 * http or https) or listed. Requests without an Origin (servers, CLIs, agents) pass that check.
 */

export type AllowList = readonly string[] | '*';

function quoted(value: string): string {
  return JSON.stringify(shortened(value));
}

/**
 * Why the Host header is refused, or null when it is allowed. It must be one header (RFC 9112
 * §3.2: a proxy may read another of several) holding a host name and port (host-header.ts), even under "*".
 */
export function hostRefusal(host: string | readonly string[] | undefined, allowedHosts: AllowList): string | null {
  if (typeof host === 'object') {
    if (host.length > 1) return 'The request has more than one Host header; send one.';
    host = host[0];
  }
  if (!host) {
    return allowedHosts === '*' ? null : 'The request has no Host header; send the host name you reach the service at.';
  }
  const parsed = parseHost(host);
  if (parsed === null) {
    return `The Host ${quoted(host)} is not a host name with an optional port; send the host name you reach the service at.`;
  }
  if (allowedHosts === '*' || allowedHosts.includes(parsed.hostname)) return null;
  return (
    `The Host ${quoted(host)} is not one this service answers as (a DNS-rebinding guard). ` +
    'Call it at its own address; an operator adds host names with ALLOWED_HOSTS or PUBLIC_URL.'
  );
}

/** Why the Origin header is refused, or null when it is absent or allowed. */
export function originRefusal(origin: string | undefined, allowedHosts: AllowList, allowedOrigins: AllowList): string | null {
  if (origin === undefined || allowedOrigins === '*') return null;
  let url: URL | null = null;
  try {
    url = new URL(origin);
  } catch {
    // "null" (sandboxed frames, file: pages) and garbage are refused below.
  }
  if (url && (url.protocol === 'http:' || url.protocol === 'https:')) {
    if (allowedOrigins.includes(url.origin)) return null;
    if (allowedHosts === '*' || allowedHosts.includes(url.hostname)) return null;
  }
  return (
    `Browser pages from the origin ${quoted(origin)} may not call this API. ` +
    'Call it from a page it serves or without an Origin header; an operator adds origins with ALLOWED_ORIGINS.'
  );
}
