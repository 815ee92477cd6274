import { Controller, Get, Header, Req } from '@nestjs/common';
import type { OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Request } from 'express';
import { AppConfig } from '../config/app-config';
import { publicBaseUrl } from '../http/public-url';
import { PROTECTED_RESOURCE_METADATA_PATH, protectedResourceMetadata } from './protected-resource';

/**
 * RFC 9728 discovery: the whole service's metadata, and the `/mcp`-suffixed form MCP clients ask
 * for first. Public (no token), readable cross-origin (browser-based clients discover too).
 */
@Controller(PROTECTED_RESOURCE_METADATA_PATH.slice(1))
export class ProtectedResourceController {
  constructor(private readonly config: AppConfig) {}

  @Get()
  @Header('cache-control', 'public, max-age=300')
  @Header('access-control-allow-origin', '*')
  service(@Req() req: Request): OAuthProtectedResourceMetadata {
    return protectedResourceMetadata(publicBaseUrl(this.config, req), '', this.config.auth.authorizationServers);
  }

  @Get('mcp')
  @Header('cache-control', 'public, max-age=300')
  @Header('access-control-allow-origin', '*')
  mcp(@Req() req: Request): OAuthProtectedResourceMetadata {
    return protectedResourceMetadata(publicBaseUrl(this.config, req), '/mcp', this.config.auth.authorizationServers);
  }
}
