import { STATUS_CODES } from 'node:http';
import { HttpException } from '@nestjs/common';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { ErrorCode } from '../common/errors/app-error';

/**
 * What the HTTP edge answers for a request no route answered well: a status, a public code
 * (R-OP-4) and a message that is safe to show. Pure: the Express wiring is edge-answer.ts.
 */
export interface EdgeError {
  readonly status: number;
  readonly code: ErrorCode;
  readonly message: string;
  /** The JSON parser's own message (with its position) when the body is not JSON: JSON-RPC's -32700 on /mcp. */
  readonly parseError?: string;
  /** A 405's `Allow`: the methods the path answers. */
  readonly allow?: readonly string[];
}

/** The house error shape (R-OP-4): a GraphQL response that carries only errors. */
export interface HouseErrorBody {
  errors: [{ message: string; extensions: { code: ErrorCode; requestId?: string } }];
}

/** A JSON-RPC 2.0 error response; `id` null when the request could not be read far enough to have one. */
export interface JsonRpcErrorBody {
  jsonrpc: '2.0';
  error: { code: number; message: string; data: { code: ErrorCode; requestId?: string; retryAfterSeconds?: number } };
  id: string | number | null;
}

/** JSON-RPC's "server error" range, for answers the MCP endpoint gives before any message is read. */
export const JSONRPC_UNAUTHENTICATED = -32001;
export const JSONRPC_RATE_LIMITED = -32029;
const JSONRPC_PARSE_ERROR = -32700;
const JSONRPC_INVALID_REQUEST = -32600;
const JSONRPC_INTERNAL_ERROR = -32603;

const CODE_BY_STATUS: Readonly<Record<number, ErrorCode>> = {
  401: ErrorCode.UNAUTHENTICATED,
  403: ErrorCode.FORBIDDEN,
  404: ErrorCode.NOT_FOUND,
  405: ErrorCode.METHOD_NOT_ALLOWED,
  409: ErrorCode.CONFLICT,
  413: ErrorCode.PAYLOAD_TOO_LARGE,
};

/**
 * The client's own mistake as body-parser, the router or `http-errors` report it: a 4xx status
 * and a message meant for the client (`expose`, or the two kinds Express sets 400 on itself).
 */
interface ClientError {
  status: number;
  message: string;
  type?: string;
  /** The text body-parser could not parse. */
  body?: string;
}

function clientErrorOf(value: unknown): ClientError | null {
  if (!(value instanceof Error)) return null;
  const { status, expose, type, body } = value as Error & { status?: unknown; expose?: unknown; type?: unknown; body?: unknown };
  if (typeof status !== 'number' || status < 400 || status > 499) return null;
  const exposed = expose === true || value instanceof SyntaxError || value instanceof URIError;
  if (!exposed) return null;
  return {
    status,
    message: value.message,
    type: typeof type === 'string' ? type : undefined,
    body: typeof body === 'string' ? body : undefined,
  };
}

/**
 * Classifies anything thrown on the way to a route. Client errors keep their status and message;
 * everything else is a 5xx whose message says nothing but the status (the caller logs the rest).
 * Nest's own error layer wraps body-parser's errors in an HttpException with the original as
 * `cause`: those are unwrapped, so a broken body reads the same wherever it is caught.
 */
export function edgeErrorOf(error: unknown, bodyLimit: string): EdgeError {
  const client = clientErrorOf(error) ?? (error instanceof HttpException ? clientErrorOf(error.cause) : null);
  if (client?.type === 'entity.parse.failed') {
    const parseError = withPosition(client.message, client.body);
    return { status: 400, code: ErrorCode.BAD_REQUEST, message: `The request body is not valid JSON: ${parseError}`, parseError };
  }
  if (client?.type === 'entity.too.large') {
    return {
      status: 413,
      code: ErrorCode.PAYLOAD_TOO_LARGE,
      message: `The request body is over the ${bodyLimit} limit (HTTP_BODY_LIMIT).`,
    };
  }
  if (client) return { status: client.status, code: CODE_BY_STATUS[client.status] ?? ErrorCode.BAD_REQUEST, message: client.message };
  if (error instanceof HttpException && error.getStatus() < 500 && error.getStatus() >= 400) {
    const status = error.getStatus();
    return { status, code: CODE_BY_STATUS[status] ?? ErrorCode.BAD_REQUEST, message: error.message };
  }
  // A deliberate 5xx (the readiness probe's 503) keeps its status; anything else is a 500.
  const status = error instanceof HttpException && error.getStatus() >= 500 ? error.getStatus() : 500;
  return {
    status,
    code: ErrorCode.INTERNAL_SERVER_ERROR,
    message: status === 500 ? 'Internal server error' : (STATUS_CODES[status] ?? 'Server error'),
  };
}

/**
 * The parser's message, with the position where the body stops being JSON when V8 left it out.
 * body-parser refuses a body that is JSON but neither an object nor an array (`"text"`, `42`) with
 * the same kind of message: that one says what is expected instead.
 */
function withPosition(message: string, body: string | undefined): string {
  if (/\bposition \d+/.test(message) || body === undefined) return message;
  const position = firstFaultOffset(body);
  if (position === undefined) return message;
  if (position === null) return `${message} (at position ${/^[ \t\n\r]*/.exec(body)![0].length}: a JSON object or array is expected)`;
  return `${message} (at position ${position})`;
}

/**
 * Where a strict JSON reading first fails: the offending token's offset; null when the text is
 * JSON; undefined when it cannot tell (the parser recurses, and a body nested ~10^5 deep
 * exhausts the stack — the message then goes without a position).
 */
function firstFaultOffset(body: string): number | null | undefined {
  const errors: ParseError[] = [];
  try {
    parseJsonc(body, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  } catch {
    return undefined;
  }
  return errors.length > 0 ? errors[0].offset : null;
}

/** A 405 for a path that answers other methods; `allow` also goes in the `Allow` header. */
export function methodNotAllowed(method: string, path: string, allow: readonly string[]): EdgeError {
  return {
    status: 405,
    code: ErrorCode.METHOD_NOT_ALLOWED,
    message: `${path} does not answer ${method}; it answers ${allow.join(', ')}.`,
    allow,
  };
}

/** The house error body; `requestId` goes with a server error, for the caller to quote to an operator. */
export function houseErrorBody(code: ErrorCode, message: string, requestId?: string): HouseErrorBody {
  return { errors: [{ message, extensions: requestId ? { code, requestId } : { code } }] };
}

/** Whether a path is the MCP endpoint's, whose clients read JSON-RPC errors (R-MCP-1). */
export function isMcpPath(path: string): boolean {
  return /^\/mcp(\/|$)/i.test(path);
}

/**
 * The body for `error` on `path`: JSON-RPC on /mcp, the house shape elsewhere. A server error says
 * only its status and the request id (as formatGraphqlError and the MCP controller do); the
 * caller logs the rest.
 */
export function edgeErrorBody(path: string, error: EdgeError, requestId: string | undefined): HouseErrorBody | JsonRpcErrorBody {
  const server = error.status >= 500;
  const id = server ? requestId : undefined;
  if (!isMcpPath(path)) return houseErrorBody(error.code, server ? `${error.message}.` : error.message, id);
  const data = id ? { code: error.code, requestId: id } : { code: error.code };
  if (error.parseError !== undefined) return jsonRpcError(JSONRPC_PARSE_ERROR, `Parse error: ${error.parseError}`, data);
  if (!server) return jsonRpcError(JSONRPC_INVALID_REQUEST, error.message, data);
  return jsonRpcError(JSONRPC_INTERNAL_ERROR, id ? `${error.message} (request id ${id}).` : `${error.message}.`, data);
}

/** A JSON-RPC error answer carrying the house code in `data.code`. */
export function jsonRpcError(
  code: number,
  message: string,
  data: JsonRpcErrorBody['error']['data'],
  id: JsonRpcErrorBody['id'] = null,
): JsonRpcErrorBody {
  return { jsonrpc: '2.0', error: { code, message, data }, id };
}

/** A value quoted in a message is cut short: the message is for a person, not an echo. */
export function shortened(value: string): string {
  return value.length > 100 ? `${value.slice(0, 100)}…` : value;
}
