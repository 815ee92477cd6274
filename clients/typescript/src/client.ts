import type { TypedDocumentString } from './generated/graphql';
import { RecallLedgerError, type GraphqlErrorDetail } from './recall-ledger-error';

/** The bearer token, or a function asked before each request (a page keeps it in memory and may change it). */
export type TokenSource = string | (() => string | Promise<string>);

export interface RecallLedgerClientOptions {
  /** The GraphQL endpoint, e.g. `https://recall.example.com/graphql` or `/graphql`. */
  url: string;
  token: TokenSource;
  /** Defaults to the global `fetch`; pass one to add headers, retries or a test double. */
  fetch?: typeof fetch;
}

/** No variables argument when the operation has none, optional when all are optional, required otherwise. */
export type VariablesArgument<V> = Record<string, never> extends V ? [variables?: V] : [variables: V];

export interface RecallLedgerClient {
  /** Runs one operation; its data, or a RecallLedgerError. */
  request<R, V>(document: TypedDocumentString<R, V>, ...variables: VariablesArgument<V>): Promise<R>;
}

/** What a GraphQL response body holds, before it is checked. */
interface ResponseBody {
  data?: unknown;
  errors?: unknown;
}

export function createRecallLedgerClient(options: RecallLedgerClientOptions): RecallLedgerClient {
  // Bound to globalThis: a browser's fetch called as a method of another object throws "Illegal invocation".
  const send = options.fetch ?? fetch.bind(globalThis);

  return {
    async request<R, V>(document: TypedDocumentString<R, V>, ...[variables]: VariablesArgument<V>): Promise<R> {
      const token = typeof options.token === 'function' ? await options.token() : options.token;
      let response: Response;
      try {
        response = await send(options.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ query: document.toString(), variables }),
        });
      } catch (cause) {
        const reason = cause instanceof Error ? cause.message : String(cause);
        throw new RecallLedgerError({ code: 'NETWORK_ERROR', message: `POST ${options.url} failed: ${reason}`, cause });
      }
      return readData<R>(response, options.url);
    },
  };
}

/** The data of a response, or the error it stands for. */
async function readData<R>(response: Response, url: string): Promise<R> {
  const requestId = response.headers.get('x-request-id');
  const httpCode = `HTTP_${response.status}`;
  const text = await response.text();
  const body = parseBody(text);
  if (body === null) {
    const type = response.headers.get('content-type') ?? 'no content type';
    throw new RecallLedgerError({
      code: httpCode,
      message: `POST ${url} answered HTTP ${response.status} with a body that is not a GraphQL response (${type}): ${brief(text)}`,
      requestId,
    });
  }

  const data = body.data ?? null;
  const errors = Array.isArray(body.errors) ? body.errors.map((error) => toDetail(error, httpCode)) : [];
  const [first] = errors;
  if (first !== undefined) {
    throw new RecallLedgerError({ code: first.code, message: first.message, field: first.field, requestId, errors, data });
  }
  if (data === null || !response.ok) {
    throw new RecallLedgerError({
      code: httpCode,
      message: `POST ${url} answered HTTP ${response.status} without data or errors.`,
      requestId,
      data,
    });
  }
  return data as R;
}

function parseBody(text: string): ResponseBody | null {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || !('data' in parsed || 'errors' in parsed)) return null;
    return parsed;
  } catch {
    return null;
  }
}

/** One GraphQL error as the client reports it; without `extensions.code`, the HTTP status stands in. */
function toDetail(error: unknown, httpCode: string): GraphqlErrorDetail {
  const { message, path, extensions } = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
  const { code, field } = (typeof extensions === 'object' && extensions !== null ? extensions : {}) as Record<string, unknown>;
  return {
    message: typeof message === 'string' ? message : 'GraphQL error without a message.',
    code: typeof code === 'string' ? code : httpCode,
    field: typeof field === 'string' ? field : null,
    path: Array.isArray(path) ? path.filter((part): part is string | number => typeof part === 'string' || typeof part === 'number') : null,
  };
}

function brief(text: string, max = 200): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line === '') return '(empty)';
  return line.length > max ? `${line.slice(0, max)}…` : line;
}
