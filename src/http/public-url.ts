import type { Request, Response } from 'express';
import type { AppConfig } from '../config/app-config';
import { formatHost, parseHost } from './host-header';

/**
 * The address a client reached the service at, without a trailing slash: PUBLIC_URL when set
 * (behind a TLS-terminating proxy the request itself says http), else the request's scheme and
 * the host and port parsed from its Host (which the host check has vetted on the routes that use
 * this) — rebuilt from the parse, never the header's text.
 */
export function publicBaseUrl(config: AppConfig, req: Request): string {
  if (config.http.publicUrl) return config.http.publicUrl;
  const scheme = requestScheme(req);
  const host = req.headers.host === undefined ? null : parseHost(req.headers.host);
  return `${scheme}://${host ? formatHost(host, scheme) : 'localhost'}`;
}

/** http or https: the connection's (no proxy's X-Forwarded-Proto is believed). */
function requestScheme(req: Request): 'http' | 'https' {
  return req.protocol.toLowerCase() === 'https' ? 'https' : 'http';
}

/** Names the request header a response built from `publicBaseUrl` depends on, so that a cache keeps one answer per Host. */
export function varyByPublicBaseUrl(config: AppConfig, res: Response): void {
  res.vary('Host');
}
