import { isIPv4, isIPv6 } from 'node:net';

/** A Host header's (or a configured address's) host, lower case, and port when one was given. */
export interface HostAndPort {
  /** A DNS name, a dotted IPv4 address, or a bracketed IPv6 address in its short form (`[::1]`). */
  readonly hostname: string;
  readonly port?: number;
}

// RFC 9110 §7.2: Host = uri-host [ ":" port ], uri-host from RFC 3986. Narrower than RFC 3986's
// reg-name on purpose: only what DNS names use (letters, digits, "-", "_", "."), so "\", "@", "/",
// "%", spaces and userinfo never pass. A URL parser is no check here: it turns "\" into "/", so
// `allowed.example\@evil.example` would read as the allowed name.
const HOST = /^(?:\[([0-9a-f:.]+)\]|([a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?))(?::(\d{1,5}))?$/i;
const MAX_NAME_LENGTH = 253;

/** Parses `value` strictly as `host[:port]` (port 1–65535), or null when it is anything else. */
export function parseHost(value: string): HostAndPort | null {
  const match = HOST.exec(value);
  if (!match) return null;
  const [, ipv6, name, portText] = match;
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && (port < 1 || port > 65535)) return null;
  let hostname: string;
  if (ipv6 !== undefined) {
    if (!isIPv6(ipv6)) return null;
    // One spelling per address, as the allowed list holds it (`[0:0:0:0:0:0:0:1]` is `[::1]`).
    hostname = new URL(`http://[${ipv6}]`).hostname;
  } else {
    hostname = name.toLowerCase();
    if (hostname.length > MAX_NAME_LENGTH) return null;
    // All digits and dots reads as an IPv4 address: only the dotted-quad form (no `127.1`, no `010.0.0.1`).
    if (/^[\d.]+$/.test(hostname) && !isIPv4(hostname)) return null;
  }
  return port === undefined ? { hostname } : { hostname, port };
}

const DEFAULT_PORTS: Record<string, number> = { http: 80, https: 443 };

/** `host[:port]` as a URL writes it: the scheme's default port is left out. */
export function formatHost(host: HostAndPort, scheme: string): string {
  return host.port === undefined || host.port === DEFAULT_PORTS[scheme] ? host.hostname : `${host.hostname}:${host.port}`;
}
