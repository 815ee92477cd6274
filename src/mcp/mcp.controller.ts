import { All, Controller, Logger, Post, Req, Res } from '@nestjs/common';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Request, Response } from 'express';
import { AppError, ErrorCode, UnauthenticatedError } from '../common/errors/app-error';
import { currentRequestId } from '../observability/request-context';
import { type ActorContext, ActorService, TokenVerifier } from '../tenancy';
import { McpToolsService } from './mcp-tools.service';

/** JSON-RPC's "server error" range; the service's own code rides in `data.code`. */
const JSONRPC_UNAUTHENTICATED = -32001;
const JSONRPC_INTERNAL = -32603;
const JSONRPC_METHOD_NOT_ALLOWED = -32000;

/**
 * `POST /mcp` (R-MCP-1): the Model Context Protocol over streamable HTTP, stateless — a new
 * server and transport per request, built for the request's actor. The global guard only
 * guards GraphQL, so this controller authenticates itself with the same bearer token: no MCP
 * message is read before the actor is known.
 */
@Controller('mcp')
export class McpController {
  private readonly logger = new Logger(McpController.name);

  constructor(
    private readonly verifier: TokenVerifier,
    private readonly actors: ActorService,
    private readonly tools: McpToolsService,
  ) {}

  @Post()
  async handle(@Req() req: Request, @Res() res: Response): Promise<void> {
    let actor: ActorContext;
    try {
      actor = await this.authenticate(req.headers.authorization);
    } catch (error) {
      if (error instanceof AppError && error.code === ErrorCode.UNAUTHENTICATED) {
        res.setHeader('www-authenticate', 'Bearer');
        res.status(401).json(jsonRpcError(JSONRPC_UNAUTHENTICATED, error.message, ErrorCode.UNAUTHENTICATED));
        return;
      }
      this.internalError(res, error);
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
      this.internalError(res, error);
    }
  }

  /** Stateless: there is no session to stream to (GET) or end (DELETE). */
  @All()
  notAllowed(@Res() res: Response): void {
    res.setHeader('allow', 'POST');
    res
      .status(405)
      .json(
        jsonRpcError(
          JSONRPC_METHOD_NOT_ALLOWED,
          'Method not allowed: this MCP endpoint is stateless; send JSON-RPC messages with POST.',
          'METHOD_NOT_ALLOWED',
        ),
      );
  }

  private async authenticate(header: string | undefined): Promise<ActorContext> {
    const match = header?.match(/^Bearer\s+(\S+)$/i);
    if (!match) throw new UnauthenticatedError('Send Authorization: Bearer <token>.');
    return this.actors.resolve(await this.verifier.verify(match[1]));
  }

  private internalError(res: Response, error: unknown): void {
    const requestId = currentRequestId();
    this.logger.error({
      msg: 'MCP request failed',
      name: (error as Error)?.name ?? null,
      code: (error as { code?: unknown })?.code ?? null,
      requestId: requestId ?? null,
    });
    if (res.headersSent) return;
    const suffix = requestId ? ` (request id ${requestId})` : '';
    res.status(500).json(jsonRpcError(JSONRPC_INTERNAL, `Internal server error${suffix}.`, ErrorCode.INTERNAL_SERVER_ERROR));
  }
}

function jsonRpcError(
  code: number,
  message: string,
  appCode: string,
): { jsonrpc: '2.0'; error: { code: number; message: string; data: { code: string } }; id: null } {
  return { jsonrpc: '2.0', error: { code, message, data: { code: appCode } }, id: null };
}
