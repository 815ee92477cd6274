import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { signToken } from '../../../src/tenancy/token-signer';
import { type DataSet, loadDataSet } from '../../data-loader';
import { intFromEnv } from '../../env-settings';
import { PAYLOAD_WORDS } from '../../payloads';
import { BENCH_JWT_SECRET } from '../../harness';
import { GQL } from '../../soak-load';
import { contains, graphqlBody, graphqlData, type InventoryContext, measureRequests, type Probe, sendExpecting } from '../measure';
import { fullFeedback, recordEvents } from './reads';

/*
 * Paths that grow with stored data rather than with a request: a team's snapshots (loaded in bulk,
 * INVENTORY_SNAPSHOTS_PER_USER each, ~1 KB payloads), its recall events and feedback
 * (INVENTORY_EVENTS, recorded through the API). Their figures scale with those volumes.
 */

/** RETENTION_BATCH_SIZE: one user's snapshots make one batch of the sweep. */
const SNAPSHOTS_PER_USER = intFromEnv('INVENTORY_SNAPSHOTS_PER_USER', 5_000);
const EVENTS = intFromEnv('INVENTORY_EVENTS', 5_000);
const FEEDBACK_ITEMS = 50;
/** The search's words, as the data set's payloads use them, joined by `or`: every snapshot matches. */
const SEARCH_WORDS = PAYLOAD_WORDS;

interface StoredTeam {
  data: DataSet;
  adminToken: string;
  token(user: number): Promise<string>;
  /** The next user no probe has used up yet (deleted, or aged and swept). */
  nextUser(): number;
}

let loaded: Promise<StoredTeam> | undefined;

/** The data set, loaded once: two users per run of the deleting probes, and one that stays. */
function storedTeam(ctx: InventoryContext): Promise<StoredTeam> {
  loaded ??= (async () => {
    const users = 2 * (ctx.runs + 1) + 1;
    ctx.log(`  loading ${users} users × ${SNAPSHOTS_PER_USER.toLocaleString('en-US')} snapshots`);
    const data = await loadDataSet(ctx.databaseUrl, { users, conversations: users * 10, snapshots: users * SNAPSHOTS_PER_USER }, ctx.log);
    const sign = (userId: string, scopes: string[]) =>
      signToken({ userId, teamId: data.teamId, scopes, secret: BENCH_JWT_SECRET, expiresInSeconds: 6 * 3600 });
    let next = 1;
    return {
      data,
      adminToken: await sign(randomUUID(), ['admin']),
      token: (user) => sign(data.userIds[user], ['memory:read', 'memory:write']),
      nextUser: () => next++,
    };
  })();
  return loaded;
}

/** Makes every snapshot of `userId` older than the retention window (180 days), as the owner. */
async function ageSnapshots(databaseUrl: string, teamId: string, userId: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `update message_tool_results set created_at = created_at - interval '200 days' where team_id = $1 and user_id = $2`,
      [teamId, userId],
    );
  } finally {
    await client.end();
  }
}

let events: Promise<void> | undefined;

/** INVENTORY_EVENTS recall events of the member's team, feedback on every one (once). */
function storedEvents(ctx: InventoryContext): Promise<void> {
  events ??= (async () => {
    ctx.log(`  recording ${EVENTS.toLocaleString('en-US')} recall events with feedback`);
    for (let done = 0; done < EVENTS; done += FEEDBACK_ITEMS) {
      const ids = await recordEvents(ctx, FEEDBACK_ITEMS);
      await sendExpecting(
        ctx,
        '/graphql',
        graphqlBody(GQL.feedback, { input: fullFeedback(ids) }),
        { token: ctx.member.token },
        contains('"recordedCount":50'),
      );
    }
  })();
  return events;
}

const perUser = `${SNAPSHOTS_PER_USER.toLocaleString('en-US')} snapshots`;

/** An admin query over the member's team's stored events, once they are there. */
function inspectionProbe(id: string, path: string, worstCase: string, query: string): Probe {
  return {
    id,
    path,
    grows: 'recall and feedback events stored',
    bound: 'first ≤ 100; totalCount counted to 10,000',
    runsOn: 'PostgreSQL, event loop',
    worstCase: `${worstCase}, over ${EVENTS.toLocaleString('en-US')} events with feedback`,
    measure: async (ctx) => {
      await storedEvents(ctx);
      return measureRequests(ctx, ctx.runs, () => async () => {
        await sendExpecting(ctx, '/graphql', graphqlBody(query), { token: ctx.adminToken }, graphqlData);
      });
    },
  };
}

export const storedDataProbes: Probe[] = [
  {
    id: 'S1',
    path: "recallMemory: full-text search of a user's snapshots",
    grows: "the user's snapshots in the space",
    bound: 'query ≤ 1,000 chars, limit ≤ 50; none on the rows searched',
    runsOn: 'PostgreSQL, event loop',
    worstCase: `a 1,000-char query of words joined by \`or\` that every snapshot matches, limit 50, over ${perUser}`,
    measure: async (ctx) => {
      const team = await storedTeam(ctx);
      const token = await team.token(0);
      let query = SEARCH_WORDS.join(' or ');
      while (query.length + 4 + SEARCH_WORDS[0].length <= 1_000) query += ` or ${SEARCH_WORDS[query.length % SEARCH_WORDS.length]}`;
      const body = graphqlBody(GQL.search.replace('limit: 5', 'limit: 50'), { s: team.data.spaceId, q: query });
      return measureRequests(ctx, ctx.runs, () => async () => {
        await sendExpecting(ctx, '/graphql', body, { token }, contains('"rank":50'));
      });
    },
  },
  {
    id: 'S2',
    path: "deleteUserData: a user's rows, in one transaction",
    grows: "the user's stored rows",
    bound: 'none on the rows; each statement ≤ DB_STATEMENT_TIMEOUT_MS = 15 s, the request ≤ 16.5 s of database time',
    runsOn: 'PostgreSQL',
    worstCase: `a user of ${perUser} (10 conversations)`,
    measure: async (ctx) => {
      const team = await storedTeam(ctx);
      return measureRequests(ctx, ctx.runs, () => {
        const user = team.data.userIds[team.nextUser()];
        const body = graphqlBody('mutation($u: ID!) { deleteUserData(userId: $u) { deleted { table count } } }', { u: user });
        return async () =>
          void (await sendExpecting(ctx, '/graphql', body, { token: team.adminToken }, contains(`"count":${SNAPSHOTS_PER_USER}`)));
      });
    },
  },
  {
    id: 'S3',
    path: 'Retention sweep: one batch of expired snapshots',
    grows: 'expired rows',
    bound: 'RETENTION_BATCH_SIZE = 5,000 a statement, RETENTION_STATEMENT_TIMEOUT_MS = 30 s',
    runsOn: 'PostgreSQL',
    worstCase: `\`runRetentionSweep\` of a team with ${perUser} past the window (one batch)`,
    measure: async (ctx) => {
      const team = await storedTeam(ctx);
      return measureRequests(ctx, ctx.runs, async () => {
        await ageSnapshots(ctx.databaseUrl, team.data.teamId, team.data.userIds[team.nextUser()]);
        const body = graphqlBody('mutation { runRetentionSweep { deleted { table count } } }');
        return async () =>
          void (await sendExpecting(ctx, '/graphql', body, { token: team.adminToken }, contains(`"count":${SNAPSHOTS_PER_USER}`)));
      });
    },
  },
  inspectionProbe(
    'S4',
    'recallEvents: inspecting stored recall events',
    '`recallEvents(first: 100, filter: {hasFeedback: true})` with their returned results and feedback (within the cost limit)',
    '{ recallEvents(first: 100, filter: { hasFeedback: true }) { totalCount edges { node { id returnedResults { id } feedbackEvents { id } } } } }',
  ),
  inspectionProbe(
    'S5',
    'feedbackEvents: inspecting stored feedback',
    '`feedbackEvents(first: 100, filter: {hasComment: true, irrelevant: true})` with their refs and recall',
    '{ feedbackEvents(first: 100, filter: { hasComment: true, irrelevant: true }) { totalCount edges { node { id irrelevantResultRefs { id } hypothesisFeedback { hypothesisId } recallEvent { id } } } } }',
  ),
  inspectionProbe(
    'S6',
    'feedbackMetrics: stats over stored feedback',
    '`feedbackMetrics(groupBy: DAY)`',
    '{ feedbackMetrics(groupBy: DAY) { group events usedRate } }',
  ),
];
