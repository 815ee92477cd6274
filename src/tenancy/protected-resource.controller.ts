import { Controller, Get, Req, Res } from '@nestjs/common';
import type { OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Request, Response } from 'express';
import { AppConfig } from '../config/app-config';
import { publicBaseUrl, varyByPublicBaseUrl } from '../http/public-url';
import { PROTECTED_RESOURCE_METADATA_PATH, protectedResourceMetadata } from './protected-resource';

/**
 * RFC 9728 discovery: the whole service's metadata, and the `/mcp`-suffixed form MCP clients ask
 * for first. Public (no token), readable cross-origin (browser-based clients discover too).
 */
@Controller(PROTECTED_RESOURCE_METADATA_PATH.slice(1))
export class ProtectedResourceController {
  constructor(private readonly config: AppConfig) {}

  @Get()
  service(@Req() req: Request, @Res({ passthrough: true }) res: Response): OAuthProtectedResourceMetadata {
    this.setHeaders(res);
    return protectedResourceMetadata(publicBaseUrl(this.config, req), '', this.config.auth.authorizationServers);
  }

  @Get('mcp')
  mcp(@Req() req: Request, @Res({ passthrough: true }) res: Response): OAuthProtectedResourceMetadata {
    this.setHeaders(res);
    return protectedResourceMetadata(publicBaseUrl(this.config, req), '/mcp', this.config.auth.authorizationServers);
  }

  /**
   * With PUBLIC_URL the document is the same for every request: any cache may keep it. Without,
   * it names the request's (allowed) Host: only the client's own cache keeps it, so no shared
   * cache that overlooks Vary hands one host's document to another host's clients.
   */
  private setHeaders(res: Response): void {
    res.setHeader('cache-control', this.config.http.publicUrl ? 'public, max-age=300' : 'private, max-age=300');
    res.setHeader('access-control-allow-origin', '*');
    varyByPublicBaseUrl(this.config, res);
  }
}
