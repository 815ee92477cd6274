import type { OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { Scope } from './scopes';

/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728): how a client that has no token learns where
 * to get one. The service is a resource server only; tokens come from the authorization server(s)
 * configured in AUTH_AUTHORIZATION_SERVERS and verify as any other (AUTH_JWKS_URL, issuer, audience).
 */
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** The metadata document of the resource at `baseUrl` + `resourcePath` ('' for the whole service, '/mcp'). */
export function protectedResourceMetadata(
  baseUrl: string,
  resourcePath: string,
  authorizationServers: readonly string[],
): OAuthProtectedResourceMetadata {
  return {
    resource: `${baseUrl}${resourcePath}`,
    ...(authorizationServers.length > 0 ? { authorization_servers: [...authorizationServers] } : {}),
    scopes_supported: Object.values(Scope),
    bearer_methods_supported: ['header'],
    resource_name: 'recall-ledger',
  };
}

/** Where the metadata of the resource at `baseUrl` + `resourcePath` is served (RFC 9728 §3.1: the well-known segment goes before the path). */
export function protectedResourceMetadataUrl(baseUrl: string, resourcePath: string): string {
  return `${baseUrl}${PROTECTED_RESOURCE_METADATA_PATH}${resourcePath}`;
}

export interface BearerChallenge {
  resourceMetadataUrl: string;
  /** RFC 6750 §3.1: none when the request carried no credentials at all. */
  error?: 'invalid_token' | 'insufficient_scope';
  description?: string;
  /** The scope the request needs (with insufficient_scope). */
  scope?: string;
}

/** A `WWW-Authenticate` value (RFC 6750 §3, RFC 9728 §5.1). */
export function bearerChallenge(challenge: BearerChallenge): string {
  const params: [string, string | undefined][] = [
    ['error', challenge.error],
    ['error_description', challenge.description],
    ['scope', challenge.scope],
    ['resource_metadata', challenge.resourceMetadataUrl],
  ];
  const quoted = params
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `${name}="${value.replace(/["\\]/gu, '')}"`);
  return `Bearer ${quoted.join(', ')}`;
}
