import type { Request } from 'express';
import type { AppConfig } from '../config/app-config';

/**
 * The address a client reached the service at, without a trailing slash: PUBLIC_URL when set
 * (behind a TLS-terminating proxy the request itself says http), else the request's scheme and
 * Host (which the host check has vetted on the routes that use this).
 */
export function publicBaseUrl(config: AppConfig, req: Request): string {
  return config.http.publicUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}
