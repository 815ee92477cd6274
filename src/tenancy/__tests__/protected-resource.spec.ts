import { OAuthProtectedResourceMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import { bearerChallenge, protectedResourceMetadata, protectedResourceMetadataUrl } from '../protected-resource';

describe('R-TN-1 protected-resource metadata (RFC 9728) and bearer challenges (RFC 6750)', () => {
  it('describes the resource with the product scopes and the configured authorization servers', () => {
    const document = protectedResourceMetadata('https://r.example', '/mcp', ['https://auth.example']);
    expect(OAuthProtectedResourceMetadataSchema.parse(document)).toEqual({
      resource: 'https://r.example/mcp',
      authorization_servers: ['https://auth.example'],
      scopes_supported: ['memory:read', 'memory:write', 'feedback:write', 'admin'],
      bearer_methods_supported: ['header'],
      resource_name: 'recall-ledger',
    });
    expect(protectedResourceMetadata('https://r.example', '', [])).not.toHaveProperty('authorization_servers');
  });

  it('puts the well-known segment before the resource path', () => {
    expect(protectedResourceMetadataUrl('https://r.example', '/mcp')).toBe('https://r.example/.well-known/oauth-protected-resource/mcp');
    expect(protectedResourceMetadataUrl('https://r.example', '')).toBe('https://r.example/.well-known/oauth-protected-resource');
  });

  it('names no error when no credentials came, and the error, scope and pointer otherwise', () => {
    const pointer = 'https://r.example/.well-known/oauth-protected-resource/mcp';
    expect(bearerChallenge({ resourceMetadataUrl: pointer })).toBe(`Bearer resource_metadata="${pointer}"`);
    expect(
      bearerChallenge({ resourceMetadataUrl: pointer, error: 'insufficient_scope', scope: 'memory:read', description: 'Say "why"' }),
    ).toBe(`Bearer error="insufficient_scope", error_description="Say why", scope="memory:read", resource_metadata="${pointer}"`);
  });
});
