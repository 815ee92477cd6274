import { Agent, request } from 'node:http';

/** One HTTP answer as received: its status, body text, the body's bytes on the wire and its Retry-After. */
export interface HttpAnswer {
  status: number;
  text: string;
  bytes: number;
  /** Retry-After in seconds, when the answer carries one. */
  retryAfterSeconds: number | null;
}

export interface RequestOptions {
  /** Sent as `Authorization: Bearer …`; none without it. */
  token?: string;
  headers?: Record<string, string>;
  /**
   * Sends once more when a reused keep-alive socket turns out closed by the server before any
   * answer (ECONNRESET, EPIPE): Node's documented race, the client's and not the service's.
   */
  retryStaleSocket?: boolean;
}

interface GraphqlBody<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

/**
 * GraphQL over plain node:http with keep-alive connections to the loopback service: less client
 * work per call than fetch, and the bench shares this process with the service it measures.
 */
export class GraphqlClient {
  private readonly agent: Agent;
  /** Calls sent so far (warm-up included), to turn a profile's time into time per request. */
  calls = 0;

  constructor(
    private readonly baseUrl: URL,
    maxSockets = 32,
    private readonly timeoutMs = 30_000,
  ) {
    if (!['127.0.0.1', 'localhost', '[::1]'].includes(baseUrl.hostname))
      throw new Error(`The bench only calls loopback addresses, not ${baseUrl.hostname}`);
    this.agent = new Agent({ keepAlive: true, maxSockets });
  }

  /** Sends the operation with the bearer token; resolves `data`, throws on an HTTP or GraphQL error. */
  call<T>(query: string, variables: Record<string, unknown>, token: string): Promise<T> {
    return this.send<T>(JSON.stringify({ query, variables }), token);
  }

  /**
   * Sends a request body serialized once beforehand: an operation repeated with the same large
   * variables (a 400 KB history) is then timed without the client's own JSON.stringify of them.
   */
  async send<T>(body: string, token: string): Promise<T> {
    this.calls++;
    const { status, text } = await this.request('/graphql', body, { token });
    const parsed = JSON.parse(text) as GraphqlBody<T>;
    if (status !== 200 || parsed.errors?.length || !parsed.data) {
      const first = parsed.errors?.[0];
      throw new Error(`GraphQL HTTP ${status}: ${first ? `${first.extensions?.code ?? ''} ${first.message}` : text.slice(0, 200)}`);
    }
    return parsed.data;
  }

  close(): void {
    this.agent.destroy();
  }

  /** POSTs a JSON `body` to `path` and resolves whatever HTTP answer comes back; rejects on a network error or the timeout. */
  request(path: string, body: string | Buffer, options: RequestOptions = {}): Promise<HttpAnswer> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: this.baseUrl.hostname,
          port: this.baseUrl.port,
          path,
          method: 'POST',
          agent: this.agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
            ...options.headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const bytes = Buffer.concat(chunks);
            const retryAfter = Number(res.headers['retry-after']);
            resolve({
              status: res.statusCode ?? 0,
              text: bytes.toString('utf8'),
              bytes: bytes.length,
              retryAfterSeconds: Number.isFinite(retryAfter) ? retryAfter : null,
            });
          });
          res.on('error', reject);
        },
      );
      req.setTimeout(this.timeoutMs, () => req.destroy(new Error(`HTTP call timed out after ${this.timeoutMs / 1000} s`)));
      req.on('error', (error: NodeJS.ErrnoException) => {
        const stale = req.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
        if (options.retryStaleSocket && stale) resolve(this.request(path, body, { ...options, retryStaleSocket: false }));
        else reject(error);
      });
      req.end(body);
    });
  }
}
