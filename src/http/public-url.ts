import type { Request, Response } from 'express';
import type { AppConfig } from '../config/app-config';
import { formatHost, parseHost } from '../config/host-header';

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

/**
 * http or https. Express reads X-Forwarded-Proto only from a trusted proxy (TRUSTED_PROXIES,
 * configure-app.ts) and passes on whatever it says: anything but https is taken as http.
 */
function requestScheme(req: Request): 'http' | 'https' {
  return req.protocol.toLowerCase() === 'https' ? 'https' : 'http';
}

/**
 * Names the request headers a response built from `publicBaseUrl` depends on, so that a cache
 * keeps one answer per Host (and per forwarded scheme, behind a trusted proxy without PUBLIC_URL).
 */
export function varyByPublicBaseUrl(config: AppConfig, res: Response): void {
  res.vary('Host');
  if (!config.http.publicUrl && config.http.trustedProxies.length > 0) res.vary('X-Forwarded-Proto');
}
