import { Agent, request } from 'node:http';

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
    const { status, text } = await this.post(body, token);
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

  private post(body: string, token: string): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: this.baseUrl.hostname,
          port: this.baseUrl.port,
          path: '/graphql',
          method: 'POST',
          agent: this.agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            authorization: `Bearer ${token}`,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.setTimeout(30_000, () => req.destroy(new Error('GraphQL call timed out after 30 s')));
      req.on('error', reject);
      req.end(body);
    });
  }
}
