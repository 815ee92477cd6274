/**
 * Upgrade in place (issue 36): a database the previous release built and filled is migrated by
 * this one at start-up, and every row stays readable by its owner and by no one else.
 *
 * An empty database is migrated only as far as the previous release went, filled as that release
 * stored its rows (test/migrations/support/previous-release.ts: plain SQL on ITS tables), then the
 * service starts on it the way `npm start` does: `prepareDatabase` applies the pending migrations
 * as the owner and hands the service the request role. Everything is read back through GraphQL
 * with each owner's token, and counted by table as the owner before and after.
 *
 * The stopping point is fixed; whatever comes after it is what the upgrade applies. Before the
 * team-keyed schema's migration exists that is nothing at all, and the test still holds: it reads
 * nothing that only one schema has (GraphQL, and row counts by table name).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import { Client, type QueryResult } from 'pg';
import { ormOptions } from '../../src/database/orm-options';
import { prepareDatabase } from '../../src/database/request-role';
import { gql, ok, type GraphqlResponse } from '../support/graphql';
import { createTestApp, identity, type TestApp } from '../support/test-app';
import { APP_PASSWORD_ENV, createEmptyTestDatabase, type TestDatabase } from '../support/test-database';
import {
  CONVERSATIONS,
  FEEDBACK_EVENTS,
  FLAG_OVERRIDES,
  fillPreviousRelease,
  handleOf,
  recallEventOf,
  RECALL_EVENTS,
  SNAPSHOTS,
  SPACES,
  SUMMARY_RULES,
  TEAMS,
  USERS,
  type OldFeedbackEvent,
  type OldRecallEvent,
  type OldSnapshot,
  type OldSpace,
  type OldUser,
} from './support/previous-release';

/** The last migration of the release before the team-keyed schema. */
const LAST_MIGRATION_OF_PREVIOUS_RELEASE = 'Migration20261202010000';

const MIGRATIONS = join(__dirname, '..', '..', 'migrations');

/** The flags the migrations seed a global default for (both off); the fixture's overrides sit on top. */
const FLAG_DEFAULTS: Record<string, boolean> = { recall_feedback_enabled: false, recall_query_text_enabled: false };

/** Tables the team-keyed schema moves rows into: counted under the table they came from. */
const MOVED_FROM: Record<string, string> = { team_feature_flags: 'feature_flags' };

const MEMBER_SCOPES = ['memory:read', 'memory:write', 'feedback:write'];
const ADMIN_SCOPES = ['admin', ...MEMBER_SCOPES];

const SNAPSHOT_FIELDS = `id memId spaceId conversationId messageId toolUseId toolName toolInput toolOutput sizeChars createdAt
  handle { memId toolName toolCallId sizeChars sizeTokens summaryOneliner schemaHint headPreview stub }`;
const HISTORY = `query($c: ID) { toolResultHistory(conversationId: $c, first: 20) { edges { node { ${SNAPSHOT_FIELDS} } } } }`;
const TOOL_RESULT = `query($id: ID!) { toolResult(id: $id) { ${SNAPSHOT_FIELDS} } }`;
const PRIOR = `query($c: ID) { priorToolResults(conversationId: $c, limit: 100) { id } }`;
const LOOKUP = `query($m: String!, $f: RecallFormat, $p: String) { recallToolResult(memId: $m, format: $f, jsonPath: $p) }`;
const ME = `{ me { userId teamId spaces { id generation } } }`;

const EVENT_FIELDS = `id teamId profileId spaceId spaceGeneration queryFingerprint queryText contractVersion rankingVersion fusionMode
  searchFreshness degradedBranches results { type id rank } toolNames semanticGroups authoredAlternatives clarificationOutcome source createdAt
  returnedResults { type id rank snapshot { memId toolName stub sizeTokens createdAt } }`;
const RECALL_EVENTS_LIST = `{ recallEvents(first: 20) { edges { node { ${EVENT_FIELDS} } } totalCount } }`;
const RECALL_EVENT = `query($id: ID!) { recallEvent(id: $id) { ${EVENT_FIELDS} } }`;
const RECALL_EVENT_WITH_FEEDBACK = `query($id: ID!) { recallEvent(id: $id) { id feedbackEvents { id } } }`;
const FEEDBACK_FIELDS = `id recallEventId teamId profileId actorId spaceId spaceGeneration used answerSupported quality missingContext irrelevant
  feedbackComment irrelevantResultRefs { type id rank } hypothesisFeedback { hypothesisId used quality contradicted feedbackComment }
  queryFingerprint contractVersion fusionMode searchFreshness degradedBranches returnedRefs { type id rank } toolNames
  clientFeedbackId createdAt`;
const FEEDBACK_EVENTS_LIST = `{ feedbackEvents(first: 20) { edges { node { ${FEEDBACK_FIELDS} } } totalCount } }`;
const FEEDBACK_EVENT = `query($id: ID!) { feedbackEvent(id: $id) { ${FEEDBACK_FIELDS} } }`;

const TEAM_SPACES = `{ spaces { id name generation status memberIds } }`;
const FLAGS = `{ featureFlags { key enabled } }`;
const RULES = `{ toolSummaryRules { toolName rule version updatedAt } }`;

const RECORD = `mutation($input: [ToolResultInput!]!) {
  recordToolResults(input: $input) { createdCount duplicateCount snapshots { id memId handle { summaryOneliner } } }
}`;
const SEARCH = `query($s: ID!, $q: String!) { recallMemory(spaceId: $s, query: $q, limit: 10) { results { ref { id } } } }`;

const ALL_USERS: OldUser[] = Object.values(USERS);
const ALL_SPACES: OldSpace[] = Object.values(SPACES);
const ADMINS = ALL_USERS.filter((u) => u.admin);

/** A mem id no release ever minted: what a read answers for a snapshot that is not there. */
const MADE_UP_MEM_ID = 'mem_madeupmadeupmade';

/** The lookups every snapshot is read with: the stub, the whole payload, and a path into it. */
const LOOKUPS: { mode: string; vars: (s: OldSnapshot) => Record<string, unknown> }[] = [
  { mode: 'SUMMARY', vars: () => ({ f: 'SUMMARY' }) },
  { mode: 'FULL', vars: () => ({ f: 'FULL' }) },
  { mode: 'jsonPath', vars: (s) => ({ p: pathInto(s) }) },
];

/** A path to a value of the payload (a string payload holding JSON too); for plain text, one that is not there. */
function pathInto(s: OldSnapshot): string {
  if (typeof s.toolOutput === 'string') return s.toolOutput.startsWith('{') ? '$.sections[0].heading' : '$.title';
  return s.toolName === 'search_orders' ? '$.orders[0].note' : '$.members[0].pet';
}

const byId = <T extends { id: string }>(items: T[], id: string): T => {
  const found = items.find((item) => item.id === id);
  if (!found) throw new Error(`no ${id} in the fixture`);
  return found;
};
const spaceOfConversation = (conversationId: string): OldSpace =>
  byId(ALL_SPACES, byId(Object.values(CONVERSATIONS), conversationId).spaceId);

/** What the previous release let its owner read: in an ACTIVE space of theirs, at the space's current generation. */
function readableByOwner(s: OldSnapshot): boolean {
  const space = spaceOfConversation(s.conversationId);
  return space.status === 'ACTIVE' && space.generation === s.spaceGeneration && space.memberIds.includes(s.userId);
}

/** A recall or feedback event is visible while its space is ACTIVE at the generation it was stored with. */
function visibleEvent(e: { spaceId: string; spaceGeneration: number }): boolean {
  const space = byId(ALL_SPACES, e.spaceId);
  return space.status === 'ACTIVE' && space.generation === e.spaceGeneration;
}

const newestFirst = <T extends { createdAt: string; id: string }>(items: T[]): T[] =>
  [...items].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));

/** A snapshot as toolResult and toolResultHistory answer it. */
function snapshotView(s: OldSnapshot) {
  const handle = handleOf(s);
  return {
    id: s.id,
    memId: s.memId,
    spaceId: spaceOfConversation(s.conversationId).id,
    conversationId: s.conversationId,
    messageId: s.messageId,
    toolUseId: s.toolUseId,
    toolName: s.toolName,
    toolInput: s.toolInput,
    toolOutput: s.toolOutput,
    sizeChars: handle.sizeChars,
    createdAt: s.createdAt,
    handle: {
      memId: s.memId,
      toolName: s.toolName,
      toolCallId: s.toolUseId,
      sizeChars: handle.sizeChars,
      sizeTokens: handle.sizeTokens,
      summaryOneliner: handle.summary,
      schemaHint: s.schemaHint,
      headPreview: handle.headPreview,
      stub: handle.stub,
    },
  };
}

/** A recall event as recallEvent and recallEvents answer it, its refs with the snapshots they still show. */
function recallEventView(e: OldRecallEvent) {
  return {
    ...e,
    returnedResults: e.results.map((ref) => {
      if (ref.type !== 'TOOL_RESULT') return { ...ref, snapshot: null };
      const s = byId(SNAPSHOTS, ref.id);
      const handle = handleOf(s);
      return {
        ...ref,
        snapshot: { memId: s.memId, toolName: s.toolName, stub: handle.stub, sizeTokens: handle.sizeTokens, createdAt: s.createdAt },
      };
    }),
  };
}

/** A feedback event as feedbackEvent and feedbackEvents answer it, with its recall's account. */
function feedbackView(f: OldFeedbackEvent) {
  const e = recallEventOf(f);
  return {
    id: f.id,
    recallEventId: e.id,
    teamId: e.teamId,
    profileId: e.profileId,
    actorId: f.actorId,
    spaceId: e.spaceId,
    spaceGeneration: e.spaceGeneration,
    used: f.used,
    answerSupported: f.answerSupported,
    quality: f.quality,
    missingContext: f.missingContext,
    irrelevant: f.irrelevant,
    feedbackComment: f.feedbackComment,
    irrelevantResultRefs: f.irrelevantResultRefs,
    hypothesisFeedback: f.hypothesisFeedback.map((h) => ({
      hypothesisId: h.hypothesisId,
      used: h.used ?? null,
      quality: h.quality ?? null,
      contradicted: h.contradicted ?? null,
      feedbackComment: h.feedbackComment ?? null,
    })),
    queryFingerprint: e.queryFingerprint,
    contractVersion: e.contractVersion,
    fusionMode: e.fusionMode,
    searchFreshness: e.searchFreshness,
    degradedBranches: e.degradedBranches,
    returnedRefs: e.results,
    toolNames: e.toolNames,
    clientFeedbackId: f.clientFeedbackId,
    createdAt: f.createdAt,
  };
}

/** Rows per table as the owner sees them (every row), moved rows counted under the table they came from; empty tables left out. */
async function rowCounts(query: (sql: string) => Promise<QueryResult>): Promise<Record<string, number>> {
  const tables = await query(
    `select table_name as name from information_schema.tables
      where table_schema = 'public' and table_type = 'BASE TABLE' and table_name <> 'mikro_orm_migrations' order by 1`,
  );
  const counts: Record<string, number> = {};
  for (const { name } of tables.rows as { name: string }[]) {
    const n = Number((await query(`select count(*) as n from "${name}"`)).rows[0].n);
    const table = MOVED_FROM[name] ?? name;
    if (n > 0) counts[table] = (counts[table] ?? 0) + n;
  }
  return counts;
}

/** What the fixture puts in each table of the previous release (all but retention_leases). */
const FILLED: Record<string, number> = {
  teams: Object.keys(TEAMS).length,
  users: ALL_USERS.length,
  spaces: ALL_SPACES.length,
  space_members: ALL_SPACES.reduce((n, s) => n + s.memberIds.length, 0),
  conversations: Object.keys(CONVERSATIONS).length,
  messages: SNAPSHOTS.length,
  message_tool_results: SNAPSHOTS.length,
  tool_summary_rules: SUMMARY_RULES.length,
  feature_flags: Object.keys(FLAG_DEFAULTS).length + FLAG_OVERRIDES.length,
  recall_events: RECALL_EVENTS.length,
  feedback_events: FEEDBACK_EVENTS.length,
};

/** The migration files after `name`, in order: what the upgrade has to apply. */
function migrationsAfter(name: string): string[] {
  return readdirSync(MIGRATIONS)
    .filter((file) => /^Migration\d+.*\.ts$/.test(file) && !file.endsWith('.d.ts'))
    .map((file) => file.replace(/\.ts$/, ''))
    .filter((migration) => migration > name)
    .sort();
}

describe('Upgrade in place: the previous release’s database, migrated at start-up (e2e)', () => {
  let database: TestDatabase | undefined;
  let t: TestApp;
  let applied: string[];
  let pending: string[];
  let before: Record<string, number>;
  let after: Record<string, number>;
  const startupLog: string[] = [];
  const tokens = new Map<string, string>();
  const token = (user: OldUser): string => tokens.get(user.key) ?? '';

  beforeAll(async () => {
    database = await createEmptyTestDatabase();

    // 1. The previous release's schema: its migrations and no later one. (A partial schema must not
    // overwrite the committed snapshot in migrations/.)
    const options = ormOptions({ url: database.url });
    const orm = await MikroORM.init({ ...options, migrations: { ...options.migrations, snapshot: false } });
    try {
      applied = (await orm.migrator.up({ to: LAST_MIGRATION_OF_PREVIOUS_RELEASE })).map((m) => m.name);
      pending = (await orm.migrator.getPendingMigrations()).map((m) => m.name);
    } finally {
      await orm.close(true);
    }

    // 2. Its rows, as it stored them, as the owner.
    const owner = new Client({ connectionString: database.url });
    await owner.connect();
    try {
      await fillPreviousRelease(owner);
      before = await rowCounts((sql) => owner.query(sql));
    } finally {
      await owner.end();
    }

    // 3. This release starts on it: migrate as the owner, then serve as the request role (src/main.ts).
    const password = process.env[APP_PASSWORD_ENV] ?? '';
    t = await createTestApp({}, { database, connect: () => prepareDatabase(database!.url, { password }, (line) => startupLog.push(line)) });
    after = await rowCounts((sql) => t.sql.query(sql));

    for (const user of ALL_USERS) {
      const scopes = user.admin ? ADMIN_SCOPES : MEMBER_SCOPES;
      tokens.set(user.key, (await identity(scopes, { userId: user.id, teamId: user.teamId })).token);
    }
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await database?.drop(); // when the app never started on it
  });

  it('R-TN-9 start-up applies every migration after the previous release, and no row of any table is lost', async () => {
    expect(applied.at(-1)).toBe(LAST_MIGRATION_OF_PREVIOUS_RELEASE);
    expect(pending).toEqual(migrationsAfter(LAST_MIGRATION_OF_PREVIOUS_RELEASE));
    const { rows } = await t.sql.query<{ name: string }>('select name from mikro_orm_migrations order by id');
    expect(rows.map((r) => r.name)).toEqual([...applied, ...pending]);
    expect(startupLog.filter((line) => line.startsWith('applied '))).toEqual(
      pending.length === 0 ? [] : [`applied ${pending.length} migration(s): ${pending.join(', ')}`],
    );

    expect(before).toEqual(FILLED);
    expect(after).toEqual(before);
  });

  it('R-TN-9 R-TN-4 R-TR-7 R-LG-2 each user reads back their own snapshots whole, at their space’s current generation only', async () => {
    for (const user of ALL_USERS) {
      const own = newestFirst(SNAPSHOTS.filter((s) => s.userId === user.id && readableByOwner(s)));
      type History = { toolResultHistory: { edges: { node: unknown }[] } };
      const history = await ok<History>(t, HISTORY, {}, token(user));
      expect({ user: user.key, history: history.toolResultHistory.edges.map((e) => e.node) }).toEqual({
        user: user.key,
        history: own.map(snapshotView),
      });
      const prior = await ok<{ priorToolResults: { id: string }[] }>(t, PRIOR, {}, token(user));
      expect({ user: user.key, prior: prior.priorToolResults.map((r) => r.id) }).toEqual({ user: user.key, prior: own.map((s) => s.id) });

      for (const conversation of Object.values(CONVERSATIONS).filter((c) => c.userId === user.id)) {
        const inIt = own.filter((s) => s.conversationId === conversation.id);
        const byConversation = await ok<History>(t, HISTORY, { c: conversation.id }, token(user));
        expect(byConversation.toolResultHistory.edges.map((e) => e.node)).toEqual(inIt.map(snapshotView));
      }

      for (const s of own) {
        const read = await ok<{ toolResult: unknown }>(t, TOOL_RESULT, { id: s.id }, token(user));
        expect(read.toolResult).toEqual(snapshotView(s));
        const summary = await ok<{ recallToolResult: string }>(t, LOOKUP, { m: s.memId, f: 'SUMMARY' }, token(user));
        expect(summary.recallToolResult).toBe(handleOf(s).stub);
        const full = await ok<{ recallToolResult: string }>(t, LOOKUP, { m: s.memId, f: 'FULL' }, token(user));
        expect({ snapshot: s.key, holdsItsWord: full.recallToolResult.includes(s.word) }).toEqual({ snapshot: s.key, holdsItsWord: true });
        if (s.toolName !== 'read_file') {
          const path = await ok<{ recallToolResult: string }>(t, LOOKUP, { m: s.memId, p: pathInto(s) }, token(user));
          expect({ snapshot: s.key, path: path.recallToolResult }).toEqual({ snapshot: s.key, path: expect.stringContaining(s.word) });
        }
      }
    }
  });

  it('R-TN-9 R-TN-5 no one else reads a snapshot: teammates and every other team get the answer for a missing one, as the owner does for a hidden one', async () => {
    /** What `reader` gets for a snapshot that does not exist, with its mem id in place of the made-up one. */
    const missing = new Map<string, string>();
    const missingAnswer = async (reader: OldUser, mode: (typeof LOOKUPS)[number], s: OldSnapshot): Promise<string> => {
      const key = `${reader.key} ${mode.mode} ${JSON.stringify(mode.vars(s))}`;
      if (!missing.has(key)) {
        const res = await ok<{ recallToolResult: string }>(t, LOOKUP, { m: MADE_UP_MEM_ID, ...mode.vars(s) }, token(reader));
        missing.set(key, res.recallToolResult);
      }
      return (missing.get(key) ?? '').replaceAll(MADE_UP_MEM_ID, s.memId);
    };

    for (const s of SNAPSHOTS) {
      // The owner too, for what the previous release already hid (an earlier generation, a sealed or retired space).
      const readers = ALL_USERS.filter((u) => u.id !== s.userId || !readableByOwner(s));
      for (const reader of readers) {
        const read = await ok<{ toolResult: unknown }>(t, TOOL_RESULT, { id: s.id }, token(reader));
        expect({ snapshot: s.key, reader: reader.key, toolResult: read.toolResult }).toEqual({
          snapshot: s.key,
          reader: reader.key,
          toolResult: null,
        });
        for (const mode of LOOKUPS) {
          const answer = await ok<{ recallToolResult: string }>(t, LOOKUP, { m: s.memId, ...mode.vars(s) }, token(reader));
          expect({ snapshot: s.key, reader: reader.key, mode: mode.mode, answer: answer.recallToolResult }).toEqual({
            snapshot: s.key,
            reader: reader.key,
            mode: mode.mode,
            answer: await missingAnswer(reader, mode, s),
          });
        }
      }
      // Nor in anyone else's list of the conversation (history answered with the owner's rows only, above).
      for (const reader of ALL_USERS.filter((u) => u.id !== s.userId)) {
        const history = await ok<{ toolResultHistory: { edges: unknown[] } }>(t, HISTORY, { c: s.conversationId }, token(reader));
        expect({ snapshot: s.key, reader: reader.key, edges: history.toolResultHistory.edges }).toEqual({
          snapshot: s.key,
          reader: reader.key,
          edges: [],
        });
      }
    }
  });

  it('R-TN-9 R-FB-8 each team admin inspects its recall events and feedback as stored; a profile reads its own events; no one else reads any', async () => {
    for (const admin of ADMINS) {
      const events = newestFirst(RECALL_EVENTS.filter((e) => e.teamId === admin.teamId && visibleEvent(e)));
      type EventList = { recallEvents: { edges: { node: unknown }[]; totalCount: number } };
      const listed = (await ok<EventList>(t, RECALL_EVENTS_LIST, {}, token(admin))).recallEvents;
      expect({ admin: admin.key, events: listed.edges.map((e) => e.node), total: listed.totalCount }).toEqual({
        admin: admin.key,
        events: events.map(recallEventView),
        total: events.length,
      });

      const feedback = newestFirst(
        FEEDBACK_EVENTS.filter((f) => recallEventOf(f).teamId === admin.teamId && visibleEvent(recallEventOf(f))),
      );
      type FeedbackList = { feedbackEvents: { edges: { node: unknown }[]; totalCount: number } };
      const judged = (await ok<FeedbackList>(t, FEEDBACK_EVENTS_LIST, {}, token(admin))).feedbackEvents;
      expect({ admin: admin.key, feedback: judged.edges.map((e) => e.node), total: judged.totalCount }).toEqual({
        admin: admin.key,
        feedback: feedback.map(feedbackView),
        total: feedback.length,
      });
      for (const e of events) {
        const linked = await ok<{ recallEvent: unknown }>(t, RECALL_EVENT_WITH_FEEDBACK, { id: e.id }, token(admin));
        const judging = FEEDBACK_EVENTS.filter((f) => f.recallEventId === e.id).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
        expect(linked.recallEvent).toEqual({ id: e.id, feedbackEvents: judging.map((f) => ({ id: f.id })) });
      }
    }

    // One by id: the team's admin and the event's profile (its own events) read it; no one else does.
    for (const e of RECALL_EVENTS) {
      for (const reader of ALL_USERS) {
        const mayRead = visibleEvent(e) && reader.teamId === e.teamId && (reader.admin || reader.id === e.profileId);
        const read = await ok<{ recallEvent: unknown }>(t, RECALL_EVENT, { id: e.id }, token(reader));
        expect({ event: e.id, reader: reader.key, recallEvent: read.recallEvent }).toEqual({
          event: e.id,
          reader: reader.key,
          recallEvent: mayRead ? recallEventView(e) : null,
        });
      }
    }
    for (const f of FEEDBACK_EVENTS) {
      for (const admin of ADMINS) {
        const mayRead = visibleEvent(recallEventOf(f)) && admin.teamId === recallEventOf(f).teamId;
        const read = await ok<{ feedbackEvent: unknown }>(t, FEEDBACK_EVENT, { id: f.id }, token(admin));
        expect({ feedback: f.id, admin: admin.key, feedbackEvent: read.feedbackEvent }).toEqual({
          feedback: f.id,
          admin: admin.key,
          feedbackEvent: mayRead ? feedbackView(f) : null,
        });
      }
    }
  });

  it('R-TN-9 R-TN-4 R-TN-6 R-TN-7 R-RC-3 each admin reads its team’s spaces and members, feature flags and summary rules; each user its allowed spaces', async () => {
    for (const admin of ADMINS) {
      const spaces = ALL_SPACES.filter((s) => s.teamId === admin.teamId).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
      expect({ admin: admin.key, ...(await ok(t, TEAM_SPACES, {}, token(admin))) }).toEqual({
        admin: admin.key,
        spaces: spaces.map((s) => ({ id: s.id, name: s.name, generation: s.generation, status: s.status, memberIds: s.memberIds })),
      });

      const flags = Object.entries(FLAG_DEFAULTS).map(([key, enabled]) => ({
        key,
        enabled: FLAG_OVERRIDES.find((f) => f.teamId === admin.teamId && f.key === key)?.enabled ?? enabled,
      }));
      expect({ admin: admin.key, ...(await ok(t, FLAGS, {}, token(admin))) }).toEqual({ admin: admin.key, featureFlags: flags });

      const rules = SUMMARY_RULES.filter((r) => r.teamId === admin.teamId).sort((a, b) => a.toolName.localeCompare(b.toolName));
      expect({ admin: admin.key, ...(await ok(t, RULES, {}, token(admin))) }).toEqual({
        admin: admin.key,
        toolSummaryRules: rules.map((r) => ({ toolName: r.toolName, rule: r.rule, version: r.version, updatedAt: r.updatedAt })),
      });
    }

    for (const user of ALL_USERS) {
      const allowed = ALL_SPACES.filter((s) => s.status === 'ACTIVE' && s.memberIds.includes(user.id));
      const { me } = await ok<{ me: { userId: string; teamId: string; spaces: { id: string; generation: number }[] } }>(
        t,
        ME,
        {},
        token(user),
      );
      expect({ ...me, spaces: [...me.spaces].sort((a, b) => a.id.localeCompare(b.id)) }).toEqual({
        userId: user.id,
        teamId: user.teamId,
        spaces: allowed.map((s) => ({ id: s.id, generation: s.generation })).sort((a, b) => a.id.localeCompare(b.id)),
      });
    }
  });

  it('R-TN-3 R-TN-9 the id team B’s admin provisioned stays B’s member; with team A’s tid the person signs in as team A’s own user, reaching nothing of team B', async () => {
    const stray = USERS.strayInB;
    const { me } = await ok<{ me: { spaces: { id: string }[] } }>(t, ME, {}, token(stray));
    expect(me.spaces.map((s) => s.id)).toEqual([SPACES.bMain.id]);

    // The previous schema refused this token (users were global, the sub B's); the team-keyed one
    // makes it a user of team A of its own, with nothing of team B.
    const asTeamA = await identity(MEMBER_SCOPES, { userId: stray.id, teamId: TEAMS.a.id });
    const bRows = SNAPSHOTS.filter((s) => s.userId === stray.id || spaceOfConversation(s.conversationId).teamId === TEAMS.b.id);
    const res: GraphqlResponse<{ me: { teamId: string; spaces: unknown[] }; toolResultHistory: { edges: unknown[] } }> = await gql(
      t,
      `{ me { teamId spaces { id } } toolResultHistory(first: 100) { edges { node { id } } } }`,
      {},
      asTeamA.token,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data).toEqual({ me: { teamId: TEAMS.a.id, spaces: [] }, toolResultHistory: { edges: [] } });
    for (const s of bRows) {
      const read = await gql<{ toolResult: unknown }>(t, TOOL_RESULT, { id: s.id }, asTeamA.token);
      expect({ snapshot: s.key, toolResult: read.data?.toolResult ?? null }).toEqual({ snapshot: s.key, toolResult: null });
    }
  });

  // Last: it writes (new snapshots and a recall event).
  it('R-TN-9 R-TR-1 R-RC-3 R-RC-8 the upgraded database takes new writes in old conversations: replays map to old snapshots, team rules apply, search finds old rows', async () => {
    const ORDERS = {
      orders: [
        { id: 31, placed_at: '2026-05-01' },
        { id: 32, placed_at: '2026-05-10' },
      ],
    };
    const writers = [
      { user: USERS.aMember, conversation: CONVERSATIONS.aMember, line: '2 orders, latest 2026-05-10' }, // team A's rule
      { user: USERS.bMember, conversation: CONVERSATIONS.bMember, line: '2 orders' }, // team B's rule
      { user: USERS.cMember, conversation: CONVERSATIONS.cMember, line: '1 key: orders[2]; newest 2026-05-10' }, // built in: C has none
    ];
    type Recorded = {
      recordToolResults: { createdCount: number; duplicateCount: number; snapshots: { id: string; handle: { summaryOneliner: string } }[] };
    };
    for (const { user, conversation, line } of writers) {
      const input = {
        spaceId: conversation.spaceId,
        conversationId: conversation.id,
        messageId: crypto.randomUUID(),
        toolUseId: `toolu_after_upgrade_${user.key}`,
        toolName: 'search_orders',
        toolInput: { customer: 'after the upgrade' },
        toolOutput: ORDERS,
      };
      const recorded = (await ok<Recorded>(t, RECORD, { input: [input] }, token(user))).recordToolResults;
      expect({ user: user.key, created: recorded.createdCount, line: recorded.snapshots[0].handle.summaryOneliner }).toEqual({
        user: user.key,
        created: 1,
        line,
      });

      // A replay of a tool_use_id the user recorded in this generation is the old snapshot again.
      const old = SNAPSHOTS.find((s) => s.userId === user.id && s.conversationId === conversation.id && readableByOwner(s));
      if (!old) throw new Error(`the fixture gives ${user.key} no readable snapshot in ${conversation.id}`);
      const replay = (
        await ok<Recorded>(t, RECORD, { input: [{ ...input, messageId: crypto.randomUUID(), toolUseId: old.toolUseId }] }, token(user))
      ).recordToolResults;
      expect({ user: user.key, created: replay.createdCount, duplicates: replay.duplicateCount, id: replay.snapshots[0].id }).toEqual({
        user: user.key,
        created: 0,
        duplicates: 1,
        id: old.id,
      });
    }

    const quokka = byId(SNAPSHOTS, 'aaaaaaaa-7777-4777-8777-000000000003');
    const hits = async (user: OldUser, spaceId: string, word: string) =>
      (
        await ok<{ recallMemory: { results: { ref: { id: string } }[] } }>(t, SEARCH, { s: spaceId, q: word }, token(user))
      ).recallMemory.results.map((r) => r.ref.id);
    expect(await hits(USERS.aMember, SPACES.aMain.id, quokka.word)).toEqual([quokka.id]);
    expect(await hits(USERS.aAdmin, SPACES.aMain.id, quokka.word)).toEqual([]);
    expect(await hits(USERS.bMember, SPACES.bMain.id, quokka.word)).toEqual([]);
    const capybara = byId(SNAPSHOTS, 'bbbbbbbb-7777-4777-8777-000000000001');
    expect(await hits(USERS.bMember, SPACES.bMain.id, capybara.word)).toEqual([capybara.id]);
  });
});
