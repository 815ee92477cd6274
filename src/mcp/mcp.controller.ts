import { All, Controller, Logger, Post, Req, Res } from '@nestjs/common';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Response } from 'express';
import { AppError, ErrorCode } from '../common/errors/app-error';
import { databaseUnavailable } from '../database/database-unavailable';
import { AppConfig } from '../config/app-config';
import { JSONRPC_UNAUTHENTICATED, jsonRpcError } from '../http/edge-errors';
import { publicBaseUrl, varyByPublicBaseUrl } from '../http/public-url';
import { currentRequestId } from '../observability/request-context';
import { labelRequestSpan } from '../observability/http-tracing.middleware';
import { annotateSpan, SPAN_ATTRIBUTES } from '../observability/tracing';
import {
  type ActorContext,
  ActorService,
  type AuthenticatedRequest,
  bearerChallenge,
  edgeClaims,
  protectedResourceMetadataUrl,
} from '../tenancy';
import { BATCHES_REMOVED_IN, isRemovedBatch } from './json-rpc-batches';
import { missingToolScope } from './mcp-tool-scopes';
import { McpToolsService } from './mcp-tools.service';
import { mcpSpanLabel } from './mcp-span-label';

/** JSON-RPC's "server error" range; the service's own code rides in `data.code`. */
const JSONRPC_FORBIDDEN = -32003;
const JSONRPC_INTERNAL = -32603;
const JSONRPC_METHOD_NOT_ALLOWED = -32000;
const JSONRPC_SERVICE_UNAVAILABLE = -32053;
const JSONRPC_INVALID_REQUEST = -32600;

/**
 * `POST /mcp` (R-MCP-1): the Model Context Protocol over streamable HTTP, stateless — a new
 * server and transport per request, built for the request's actor. The edge verified the same
 * bearer token and admitted the request before its body was read (`authenticateBeforeBody`), and
 * no MCP message is handled before the actor is known. A 401 or 403 carries the OAuth challenge that
 * points clients at the protected-resource metadata (RFC 9728), so they can discover where to
 * get a token and which scope a tool needs.
 */
@Controller('mcp')
export class McpController {
  private readonly logger = new Logger(McpController.name);

  constructor(
    private readonly actors: ActorService,
    private readonly tools: McpToolsService,
    private readonly config: AppConfig,
  ) {}

  @Post()
  async handle(@Req() req: AuthenticatedRequest, @Res() res: Response): Promise<void> {
    if (isRemovedBatch(req.body, req.headers['mcp-protocol-version'])) {
      // Refused before any message is looked at: one POST may not ask for a hundred tools' work (R-TN-10).
      res
        .status(400)
        .json(
          jsonRpcError(
            JSONRPC_INVALID_REQUEST,
            `Invalid Request: JSON-RPC batches were removed in MCP ${BATCHES_REMOVED_IN}; send one message per POST.`,
            { code: ErrorCode.BAD_REQUEST },
          ),
        );
      return;
    }
    labelRequestSpan(req, () => mcpSpanLabel(req.body));
    const resourceMetadataUrl = protectedResourceMetadataUrl(publicBaseUrl(this.config, req), '/mcp');
    // The challenges below name the address the request reached.
    varyByPublicBaseUrl(this.config, res);
    let actor: ActorContext;
    try {
      // The edge verified the token and admitted the request before its body was read (R-TN-10).
      actor = await this.actors.resolve(edgeClaims(req));
      annotateSpan({ [SPAN_ATTRIBUTES.teamId]: actor.teamId });
    } catch (error) {
      // A token issued before its user's deletion (R-RT-4) is refused once the user is read.
      if (error instanceof AppError && error.code === ErrorCode.UNAUTHENTICATED) {
        res.setHeader('www-authenticate', bearerChallenge({ resourceMetadataUrl, error: 'invalid_token', description: error.message }));
        res.status(401).json(jsonRpcError(JSONRPC_UNAUTHENTICATED, error.message, { code: ErrorCode.UNAUTHENTICATED }));
        return;
      }
      this.failed(res, error);
      return;
    }

    const missing = missingToolScope(req.body, (scope) => actor.hasScope(scope));
    if (missing !== null) {
      const message = `The tool ${missing.tool} needs the scope ${missing.scope}; the bearer token does not carry it.`;
      res.setHeader(
        'www-authenticate',
        bearerChallenge({ resourceMetadataUrl, error: 'insufficient_scope', scope: missing.scope, description: message }),
      );
      res.status(403).json(jsonRpcError(JSONRPC_FORBIDDEN, message, { code: ErrorCode.FORBIDDEN }, missing.id));
      return;
    }

    try {
      const server = await this.tools.serverFor(actor);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      // Nest's JSON body parser has read the body already.
      await transport.handleRequest(req, res, req.body);
    } catch (error) {
      this.failed(res, error);
    }
  }

  /** Stateless: there is no session to stream to (GET) or end (DELETE). */
  @All()
  notAllowed(@Res() res: Response): void {
    res.setHeader('allow', 'POST');
    res.status(405).json(
      jsonRpcError(JSONRPC_METHOD_NOT_ALLOWED, 'Method not allowed: this MCP endpoint is stateless; send JSON-RPC messages with POST.', {
        code: ErrorCode.METHOD_NOT_ALLOWED,
      }),
    );
  }

  /**
   * A failure before the MCP message was answered: SERVICE_UNAVAILABLE (HTTP 503, `Retry-After`) when
   * the database did not answer within the service's deadlines, else a masked internal error.
   */
  private failed(res: Response, error: unknown): void {
    const requestId = currentRequestId();
    const unavailable = databaseUnavailable(error);
    if (unavailable !== null) {
      this.logger.warn({ msg: 'database did not answer in time', missed: unavailable.missed, requestId: requestId ?? null });
      if (res.headersSent) return;
      const { message, retryAfterSeconds } = unavailable.error;
      res.setHeader('retry-after', String(retryAfterSeconds));
      res.status(503).json(jsonRpcError(JSONRPC_SERVICE_UNAVAILABLE, message, { code: ErrorCode.SERVICE_UNAVAILABLE, retryAfterSeconds }));
      return;
    }
    this.logger.error({
      msg: 'MCP request failed',
      name: (error as Error)?.name ?? null,
      code: (error as { code?: unknown })?.code ?? null,
      requestId: requestId ?? null,
    });
    if (res.headersSent) return;
    const suffix = requestId ? ` (request id ${requestId})` : '';
    res.status(500).json(jsonRpcError(JSONRPC_INTERNAL, `Internal server error${suffix}.`, { code: ErrorCode.INTERNAL_SERVER_ERROR }));
  }
}
