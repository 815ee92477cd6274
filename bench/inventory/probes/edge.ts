import { randomBytes, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../../src/config/load-config';
import { signToken } from '../../../src/tenancy/token-signer';
import { BENCH_JWT_SECRET } from '../../harness';
import { ServiceClock } from '../clock';
import type { RunFigures } from '../figures';
import {
  contains,
  graphqlBody,
  graphqlData,
  graphqlError,
  type InventoryContext,
  measureRequests,
  type Probe,
  sendExpecting,
} from '../measure';
import { BODY_MAX_BYTES, deepArrays, distinctKeyObjects, emptyObjects, paddedJsonBody, repeatedFieldsDocument } from '../shapes';

/** The request floor and what every call pays before its operation: the token, the body, the document, admission. */

const ME = '{ me { userId teamId } }';
/** The most times one field fits GRAPHQL_MAX_COST (5,000): graphql-armor costs each 1.5, `me` 2. */
const REPEATED_FIELDS = 3_330;
/** Node's default limit on a request's headers (16 KiB): the longest token a client can send. */
const FORGED_TOKEN_CHARS = 14_000;
/** MAX_IN_FLIGHT, ADMISSION_QUEUE_MAX (their defaults), and one team's share of the two (in flight plus half the queue). */
const { maxInFlight: MAX_IN_FLIGHT, queueMax: QUEUE_MAX } = loadConfig({ AUTH_JWT_SECRET: BENCH_JWT_SECRET }).admission;
const TEAM_SHARE = MAX_IN_FLIGHT + QUEUE_MAX / 2;
const STALLED = MAX_IN_FLIGHT + QUEUE_MAX;

/** graphql-js (16.15) stops comparing overlapping selections past a work budget of its own: "Validation aborted.". */
const validationAborted = (answer: { text: string }): string | null =>
  answer.text.includes('Validation aborted') ? null : 'validation aborted by graphql-js';

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/** A well-formed HS256 token of about `chars` characters that no key signed. */
function forgedToken(chars: number): string {
  const header = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = base64url(JSON.stringify({ sub: randomUUID(), tid: randomUUID(), pad: 'x'.repeat(Math.floor(chars * 0.74)) }));
  return `${header}.${payload}.${base64url(randomBytes(32))}`;
}

const meWithPadding = (padding: (room: number) => string) =>
  paddedJsonBody({ query: ME, variables: { pad: 'PAD' } }, BODY_MAX_BYTES - 64, padding);

/** `{ me }` with a 10 MB variable the operation never reads: the body parser's work alone, beside the floor. */
function bodyParseProbe(id: string, shape: string, padding: (room: number) => string): Probe {
  return {
    id,
    path: 'HTTP body parse (an authenticated call)',
    grows: 'body size and shape',
    bound:
      'HTTP_BODY_LIMIT = 10 MB, nesting ≤ 256, MAX_LARGE_REQUESTS_IN_FLIGHT = 1; over 65,536 brackets, commas and colons: parsed 32 KiB a turn',
    runsOn: 'event loop, in slices',
    worstCase: `\`{ me }\` with a 10 MB body of ${shape}`,
    measure: async (ctx) => {
      const body = meWithPadding(padding);
      const send = async () => void (await sendExpecting(ctx, '/graphql', body, { token: ctx.member.token }, graphqlData));
      return measureRequests(ctx, ctx.runs, () => send, { memory: true });
    },
  };
}

export const edgeProbes: Probe[] = [
  {
    id: 'E1',
    path: 'The request floor: `{ me }`',
    grows: '— (the reference every row includes)',
    bound: '—',
    runsOn: 'event loop, PostgreSQL',
    worstCase: '`{ me { userId teamId } }`',
    measure: (ctx) =>
      measureRequests(ctx, ctx.runs, () => async () => {
        await sendExpecting(ctx, '/graphql', graphqlBody(ME), { token: ctx.member.token }, graphqlData);
      }),
  },
  {
    id: 'E2',
    path: 'Unauthenticated request: token verification, refused before the body',
    grows: 'token length, body size',
    bound: "Node's 16 KiB of headers; no body read",
    runsOn: 'event loop (HMAC on libuv)',
    worstCase: `a forged ${FORGED_TOKEN_CHARS.toLocaleString('en-US')}-char HS256 token, a 9.8 MB body`,
    measure: async (ctx) => {
      const body = meWithPadding((room) => JSON.stringify('x'.repeat(room - 2)));
      let resets = 0;
      const figures = await measureRequests(ctx, ctx.runs, () => {
        const token = forgedToken(FORGED_TOKEN_CHARS);
        return async () => {
          try {
            await sendExpecting(ctx, '/graphql', body, { token }, graphqlError('UNAUTHENTICATED'));
          } catch (error) {
            // The service answers and closes after reading at most 256 KiB of the body: a client still
            // writing megabytes may see the reset before the answer. Either is the refusal measured.
            if (!/ECONNRESET|EPIPE/.test(String(error))) throw error;
            resets++;
          }
        };
      });
      if (resets > 0)
        ctx.note(`${resets} of the runs saw the connection reset while still sending (the refusal, before the answer was read)`);
      return figures;
    },
  },
  {
    id: 'E3',
    path: 'HTTP body: the nesting check before the parse (an authenticated call)',
    grows: 'body size',
    bound: 'one pass over the bytes, 512 KiB a turn; nesting over 256 levels refused (400 BAD_REQUEST) before any parse',
    runsOn: 'event loop, in slices',
    worstCase: '`{ me }` with a 10 MB body of `[[[…]]]` nested 5 million deep (3.4 s of JSON.parse before the check)',
    measure: (ctx) => {
      const body = meWithPadding((room) => deepArrays(room));
      return measureRequests(ctx, ctx.runs, () => async () => {
        await sendExpecting(ctx, '/graphql', body, { token: ctx.member.token }, graphqlError('BAD_REQUEST'));
      });
    },
  },
  bodyParseProbe('E4', '`[{},{},…]` (3.5 million objects)', (room) => emptyObjects(room)),
  bodyParseProbe('E8', '`[{"k0":0},{"k1":0},…]` (50,000 distinct keys, over and over)', (room) => distinctKeyObjects(room)),
  {
    id: 'E5',
    path: 'GraphQL document: parse and validation',
    grows: 'document tokens',
    bound: 'graphql-armor: GRAPHQL_MAX_COST = 5,000, GRAPHQL_MAX_TOKENS = 10,000, depth 10, aliases 15',
    runsOn: 'event loop',
    worstCase: `\`{ me { userId userId … } }\`: one field selected ${REPEATED_FIELDS.toLocaleString('en-US')} times (the cost limit's most), until graphql-js's own work budget aborts the overlap check`,
    measure: (ctx) =>
      measureRequests(ctx, ctx.runs, () => async () => {
        await sendExpecting(
          ctx,
          '/graphql',
          graphqlBody(repeatedFieldsDocument(REPEATED_FIELDS)),
          { token: ctx.member.token },
          validationAborted,
        );
      }),
  },
  {
    id: 'E6',
    path: 'GraphQL document: one long string literal',
    grows: 'document length',
    bound: 'HTTP_BODY_LIMIT = 10 MB (one token)',
    runsOn: 'event loop',
    worstCase: '`recallToolResult(query: "…")` with a 9.9 MB literal (refused as a query over 1,000 chars)',
    measure: (ctx) => {
      const literal = 'a'.repeat(BODY_MAX_BYTES - 2_000);
      const query = `{ recallToolResult(memId: "mem_aaaaaaaaaaaaaaaa", query: "${literal}") }`;
      return measureRequests(ctx, ctx.runs, () => async () => {
        await sendExpecting(ctx, '/graphql', graphqlBody(query), { token: ctx.member.token }, contains('bad query'));
      });
    },
  },
  {
    id: 'E7',
    path: 'Admission: requests in flight and waiting',
    grows: 'concurrent requests',
    bound: `MAX_IN_FLIGHT = ${MAX_IN_FLIGHT}, ADMISSION_QUEUE_MAX = ${QUEUE_MAX} (a team ≤ ${TEAM_SHARE}), ADMISSION_QUEUE_WAIT_MS = 5 s`,
    runsOn: 'event loop (memory: per request)',
    worstCase: `${MAX_IN_FLIGHT} admitted calls stalled mid-body and ${QUEUE_MAX} waiting (two teams): CPU per request, memory for all ${STALLED}`,
    maxRuns: 3,
    measure: (ctx) => measureAdmission(ctx),
  },
];

/**
 * Fills admission: two teams open MAX_IN_FLIGHT + ADMISSION_QUEUE_MAX requests that send their
 * headers and never their body (the first ones are admitted and wait for it, the rest wait for a
 * turn); the service's CPU and peak memory once all are in, then every socket is closed.
 */
async function measureAdmission(ctx: InventoryContext): Promise<RunFigures[]> {
  const teams = await Promise.all([0, 1].map(() => teamToken()));
  const figures: RunFigures[] = [];
  for (let run = 0; run < Math.min(ctx.runs, 3); run++) {
    const rssBefore = ctx.clock.resetPeakMemory();
    await ctx.longestLoopHoldMs();
    const before = ctx.clock.read();
    const stalled = Array.from({ length: STALLED }, (_, i) => stalledRequest(ctx.baseUrl, teams[i < TEAM_SHARE ? 0 : 1]));
    // The service takes them one by one; all are in once it stops spending CPU on new ones (well before the 5 s wait ends).
    await sleep(1_500);
    const spent = ServiceClock.spent(before, ctx.clock.read());
    const peakMiB = (ctx.clock.memoryKiB().peak - rssBefore) / 1024;
    const holdMs = await ctx.longestLoopHoldMs();
    const refused = stalled.filter((s) => s.status() !== undefined).length;
    for (const s of stalled) s.close();
    if (refused > 0) throw new Error(`admission refused ${refused} of the stalled requests before they were all in`);
    figures.push({
      loopMs: spent.loopMs / STALLED,
      holdMs,
      poolMs: spent.workerMs / STALLED,
      postgresMs: spent.postgresMs / STALLED,
      peakMiB,
    });
    await sleep(500);
  }
  return figures;
}

async function teamToken(): Promise<string> {
  return signToken({
    userId: randomUUID(),
    teamId: randomUUID(),
    scopes: ['memory:read'],
    secret: BENCH_JWT_SECRET,
    expiresInSeconds: 3600,
  });
}

/** A POST whose headers announce a body that never comes; `status` once the service answered. */
function stalledRequest(baseUrl: URL, token: string): { status: () => number | undefined; close: () => void } {
  let status: number | undefined;
  const req = request({
    host: baseUrl.hostname,
    port: baseUrl.port,
    path: '/graphql',
    method: 'POST',
    agent: false,
    headers: { 'content-type': 'application/json', 'content-length': 1_000, authorization: `Bearer ${token}` },
  });
  req.on('response', (res) => {
    status = res.statusCode;
    res.resume();
  });
  req.on('error', () => undefined);
  req.write('{"query":');
  return { status: () => status, close: () => req.destroy() };
}
