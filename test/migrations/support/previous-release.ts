/**
 * A database as the previous release left it (the schema of its last migration, before the
 * team-keyed schema of issue 36): three teams, their users, spaces and members, conversations,
 * messages, snapshots, recall events, feedback, summary rules and feature-flag overrides.
 *
 * Written the way that release stored its rows, as the owner, with plain SQL against ITS tables:
 * this file is frozen with that schema, like the migrations, and imports nothing from src/ (the
 * service's current shapes may move on; what an old database holds does not). Times are fixed, in
 * the weeks before the upgrade; ids are spelled so that a failure names whose row it is
 * (`aaaaaaaa-…` is team A's, `bbbbbbbb-…` team B's, `cccccccc-…` team C's).
 */
import type { Client } from 'pg';

interface OldTeam {
  id: string;
  createdAt: string;
}

export interface OldUser {
  /** How the tests name it. */
  key: string;
  id: string;
  teamId: string;
  /** Its tokens carry `admin` too. */
  admin: boolean;
}

type OldSpaceStatus = 'ACTIVE' | 'SEALED' | 'RETIRED';

export interface OldSpace {
  id: string;
  teamId: string;
  name: string;
  generation: number;
  status: OldSpaceStatus;
  /** In the order they joined (a minute apart, from the space's creation). */
  memberIds: string[];
  createdAt: string;
}

interface OldConversation {
  id: string;
  userId: string;
  spaceId: string;
  createdAt: string;
}

/** A stored tool result with its handle, as the write path of the previous release built it. */
export interface OldSnapshot {
  key: string;
  id: string;
  memId: string;
  userId: string;
  conversationId: string;
  /** The assistant message that incorporated the call (one message row per snapshot). */
  messageId: string;
  toolUseId: string;
  toolName: string;
  toolInput: unknown;
  /** A JSON value, or a string for text output. */
  toolOutput: unknown;
  /** The generation of its space when it was written. */
  spaceGeneration: number;
  compacted: boolean;
  /** Its one-line summary; null: the generic one of text output, `<tool> result, <n> chars`. */
  summary: string | null;
  schemaHint: string | null;
  /** A word only this payload holds (letters only, so full-text search keeps it whole). */
  word: string;
  createdAt: string;
}

interface OldSummaryRule {
  teamId: string;
  toolName: string;
  rule: unknown;
  version: number;
  createdAt: string;
  updatedAt: string;
}

interface OldFlagOverride {
  teamId: string;
  key: string;
  enabled: boolean;
}

interface OldRef {
  type: string;
  id: string;
  rank: number;
}

export interface OldRecallEvent {
  id: string;
  teamId: string;
  profileId: string;
  spaceId: string;
  spaceGeneration: number;
  queryFingerprint: string | null;
  queryText: string | null;
  contractVersion: string;
  rankingVersion: string | null;
  fusionMode: string | null;
  searchFreshness: string | null;
  degradedBranches: string[];
  results: OldRef[];
  toolNames: string[];
  semanticGroups: unknown;
  authoredAlternatives: unknown;
  clarificationOutcome: string | null;
  source: 'INTERNAL' | 'EXTERNAL';
  createdAt: string;
}

/** A feedback event; the recall's own account (profile, space, versions, refs, tool names) is copied from its event when filled. */
export interface OldFeedbackEvent {
  id: string;
  recallEventId: string;
  actorId: string;
  used: boolean;
  answerSupported: boolean | null;
  quality: 'LOW' | 'MEDIUM' | 'HIGH' | null;
  missingContext: boolean | null;
  irrelevant: boolean | null;
  feedbackComment: string | null;
  irrelevantResultRefs: OldRef[];
  hypothesisFeedback: { hypothesisId: string; used?: boolean; quality?: string; contradicted?: boolean; feedbackComment?: string }[];
  clientFeedbackId: string | null;
  /** Kept with a client id only. */
  itemDigest: string | null;
  createdAt: string;
}

// ---------------------------------------------------------------------------------------------
// Teams and users

export const TEAMS = {
  a: { id: 'aaaaaaaa-0000-4000-8000-000000000000', createdAt: '2026-11-01T08:00:00.000Z' },
  b: { id: 'bbbbbbbb-0000-4000-8000-000000000000', createdAt: '2026-11-02T08:00:00.000Z' },
  c: { id: 'cccccccc-0000-4000-8000-000000000000', createdAt: '2026-11-03T08:00:00.000Z' },
} satisfies Record<string, OldTeam>;

export const USERS = {
  aAdmin: { key: 'aAdmin', id: 'aaaaaaaa-1111-4111-8111-000000000001', teamId: TEAMS.a.id, admin: true },
  aMember: { key: 'aMember', id: 'aaaaaaaa-1111-4111-8111-000000000002', teamId: TEAMS.a.id, admin: false },
  bAdmin: { key: 'bAdmin', id: 'bbbbbbbb-1111-4111-8111-000000000001', teamId: TEAMS.b.id, admin: true },
  bMember: { key: 'bMember', id: 'bbbbbbbb-1111-4111-8111-000000000002', teamId: TEAMS.b.id, admin: false },
  /**
   * A person of team A whom team B's admin added to a space of B by id before they ever signed
   * in to A: users.id was global, so the previous release made that id team B's user (and a
   * token of team A for it was refused). Here it is B's member, as that release left it.
   */
  strayInB: { key: 'strayInB', id: 'abababab-1111-4111-8111-000000000003', teamId: TEAMS.b.id, admin: false },
  cAdmin: { key: 'cAdmin', id: 'cccccccc-1111-4111-8111-000000000001', teamId: TEAMS.c.id, admin: true },
  cMember: { key: 'cMember', id: 'cccccccc-1111-4111-8111-000000000002', teamId: TEAMS.c.id, admin: false },
} satisfies Record<string, OldUser>;

// ---------------------------------------------------------------------------------------------
// Spaces: one bumped to generation 2 (its generation-1 rows read as missing), one sealed, one retired

export const SPACES = {
  aMain: {
    id: 'aaaaaaaa-5555-4555-8555-000000000001',
    teamId: TEAMS.a.id,
    name: 'A research',
    generation: 2,
    status: 'ACTIVE',
    memberIds: [USERS.aAdmin.id, USERS.aMember.id],
    createdAt: '2026-11-01T09:00:00.000Z',
  },
  bMain: {
    id: 'bbbbbbbb-5555-4555-8555-000000000001',
    teamId: TEAMS.b.id,
    name: 'B support',
    generation: 1,
    status: 'ACTIVE',
    memberIds: [USERS.bAdmin.id, USERS.bMember.id, USERS.strayInB.id],
    createdAt: '2026-11-02T09:00:00.000Z',
  },
  bSealed: {
    id: 'bbbbbbbb-5555-4555-8555-000000000002',
    teamId: TEAMS.b.id,
    name: 'B last quarter',
    generation: 1,
    status: 'SEALED',
    memberIds: [USERS.bAdmin.id, USERS.bMember.id],
    createdAt: '2026-11-02T09:30:00.000Z',
  },
  cMain: {
    id: 'cccccccc-5555-4555-8555-000000000001',
    teamId: TEAMS.c.id,
    name: 'C operations',
    generation: 1,
    status: 'ACTIVE',
    memberIds: [USERS.cAdmin.id, USERS.cMember.id],
    createdAt: '2026-11-03T09:00:00.000Z',
  },
  cRetired: {
    id: 'cccccccc-5555-4555-8555-000000000002',
    teamId: TEAMS.c.id,
    name: 'C archive',
    generation: 1,
    status: 'RETIRED',
    memberIds: [USERS.cMember.id],
    createdAt: '2026-11-03T09:30:00.000Z',
  },
} satisfies Record<string, OldSpace>;

export const CONVERSATIONS = {
  aAdmin: {
    id: 'aaaaaaaa-cccc-4ccc-8ccc-000000000001',
    userId: USERS.aAdmin.id,
    spaceId: SPACES.aMain.id,
    createdAt: '2026-11-20T08:00:00.000Z',
  },
  aMember: {
    id: 'aaaaaaaa-cccc-4ccc-8ccc-000000000002',
    userId: USERS.aMember.id,
    spaceId: SPACES.aMain.id,
    createdAt: '2026-11-20T08:30:00.000Z',
  },
  bAdmin: {
    id: 'bbbbbbbb-cccc-4ccc-8ccc-000000000001',
    userId: USERS.bAdmin.id,
    spaceId: SPACES.bMain.id,
    createdAt: '2026-11-21T08:00:00.000Z',
  },
  bMember: {
    id: 'bbbbbbbb-cccc-4ccc-8ccc-000000000002',
    userId: USERS.bMember.id,
    spaceId: SPACES.bMain.id,
    createdAt: '2026-11-21T08:30:00.000Z',
  },
  bMemberSealed: {
    id: 'bbbbbbbb-cccc-4ccc-8ccc-000000000003',
    userId: USERS.bMember.id,
    spaceId: SPACES.bSealed.id,
    createdAt: '2026-11-10T08:00:00.000Z',
  },
  cAdmin: {
    id: 'cccccccc-cccc-4ccc-8ccc-000000000001',
    userId: USERS.cAdmin.id,
    spaceId: SPACES.cMain.id,
    createdAt: '2026-11-22T08:00:00.000Z',
  },
  cMember: {
    id: 'cccccccc-cccc-4ccc-8ccc-000000000002',
    userId: USERS.cMember.id,
    spaceId: SPACES.cMain.id,
    createdAt: '2026-11-22T08:30:00.000Z',
  },
  cMemberRetired: {
    id: 'cccccccc-cccc-4ccc-8ccc-000000000003',
    userId: USERS.cMember.id,
    spaceId: SPACES.cRetired.id,
    createdAt: '2026-11-05T08:00:00.000Z',
  },
} satisfies Record<string, OldConversation>;

// ---------------------------------------------------------------------------------------------
// Snapshots

/** A mem id as that release minted them (`mem_` + 16 base32 characters), spelled from a tag for reading. */
const memId = (tag: string) => `mem_${tag.padEnd(16, 'q')}`;

/** One tool_use_id three snapshots share: aMember's before and after the bump (a replay records anew), and bMember's. */
const SHARED_TOOL_USE = 'toolu_01SharedAcrossGenerations';

const PLAN_V2 = ['Plan v2', ...Array.from({ length: 30 }, (_, i) => `line ${i + 1}: the axolotl budget holds`)].join('\n');

export const SNAPSHOTS: OldSnapshot[] = [
  // Team A, aMember: two of generation 1 (before the bump), three of generation 2.
  {
    key: 'aMember gen-1 orders',
    id: 'aaaaaaaa-7777-4777-8777-000000000001',
    memId: memId('aoldorders'),
    userId: USERS.aMember.id,
    conversationId: CONVERSATIONS.aMember.id,
    messageId: 'aaaaaaaa-eeee-4eee-8eee-000000000001',
    toolUseId: SHARED_TOOL_USE,
    toolName: 'search_orders',
    toolInput: { customer: 'ada', since: '2026-11-01' },
    toolOutput: { orders: [{ id: 1, placed_at: '2026-11-18', note: 'walrus' }] },
    spaceGeneration: 1,
    compacted: false,
    summary: '1 order, latest 2026-11-18',
    schemaHint: 'orders[]{id,note,placed_at}',
    word: 'walrus',
    createdAt: '2026-11-20T09:00:00.000Z',
  },
  {
    key: 'aMember gen-1 file',
    id: 'aaaaaaaa-7777-4777-8777-000000000002',
    memId: memId('aoldfile'),
    userId: USERS.aMember.id,
    conversationId: CONVERSATIONS.aMember.id,
    messageId: 'aaaaaaaa-eeee-4eee-8eee-000000000002',
    toolUseId: 'toolu_01AMemberPlanV1',
    toolName: 'read_file',
    toolInput: { path: 'notes/plan.md' },
    toolOutput: 'Plan v1\nkeep the narwhal list short\n',
    spaceGeneration: 1,
    compacted: true,
    summary: null,
    schemaHint: null,
    word: 'narwhal',
    createdAt: '2026-11-20T09:05:00.000Z',
  },
  {
    key: 'aMember orders',
    id: 'aaaaaaaa-7777-4777-8777-000000000003',
    memId: memId('aorders'),
    userId: USERS.aMember.id,
    conversationId: CONVERSATIONS.aMember.id,
    messageId: 'aaaaaaaa-eeee-4eee-8eee-000000000003',
    toolUseId: SHARED_TOOL_USE,
    toolName: 'search_orders',
    toolInput: { customer: 'ada', since: '2026-11-01' },
    toolOutput: {
      orders: [
        { id: 2, placed_at: '2026-11-24', note: 'quokka' },
        { id: 1, placed_at: '2026-11-18', note: 'walrus again' },
      ],
    },
    spaceGeneration: 2,
    compacted: false,
    summary: '2 orders, latest 2026-11-24',
    schemaHint: 'orders[]{id,note,placed_at}',
    word: 'quokka',
    createdAt: '2026-11-25T10:00:00.000Z',
  },
  {
    key: 'aMember file',
    id: 'aaaaaaaa-7777-4777-8777-000000000004',
    memId: memId('afile'),
    userId: USERS.aMember.id,
    conversationId: CONVERSATIONS.aMember.id,
    messageId: 'aaaaaaaa-eeee-4eee-8eee-000000000004',
    toolUseId: 'toolu_01AMemberPlanV2',
    toolName: 'read_file',
    toolInput: { path: 'notes/plan.md' },
    toolOutput: PLAN_V2,
    spaceGeneration: 2,
    compacted: true,
    summary: null,
    schemaHint: null,
    word: 'axolotl',
    createdAt: '2026-11-25T10:05:00.000Z',
  },
  {
    key: 'aMember page (JSON in a string)',
    id: 'aaaaaaaa-7777-4777-8777-000000000005',
    memId: memId('apage'),
    userId: USERS.aMember.id,
    conversationId: CONVERSATIONS.aMember.id,
    messageId: 'aaaaaaaa-eeee-4eee-8eee-000000000005',
    toolUseId: 'toolu_01AMemberPage',
    toolName: 'fetch_page',
    toolInput: { url: 'https://example.com/report' },
    toolOutput: '{"title": "Field report", "sections": [{"heading": "pangolin sightings", "words": 120}]}',
    spaceGeneration: 2,
    compacted: false,
    summary: null,
    schemaHint: null,
    word: 'pangolin',
    createdAt: '2026-11-26T11:00:00.000Z',
  },
  // Team A, aAdmin: private to aAdmin like any snapshot, even from a teammate.
  {
    key: 'aAdmin site data',
    id: 'aaaaaaaa-7777-4777-8777-000000000006',
    memId: memId('asite'),
    userId: USERS.aAdmin.id,
    conversationId: CONVERSATIONS.aAdmin.id,
    messageId: 'aaaaaaaa-eeee-4eee-8eee-000000000006',
    toolUseId: 'toolu_01AAdminSite',
    toolName: 'query_site_data',
    toolInput: { target: 'recent_members' },
    toolOutput: { members: [{ name: 'Ada', registered_at: '2026-11-02', pet: 'okapi' }] },
    spaceGeneration: 2,
    compacted: false,
    summary: '1 member',
    schemaHint: 'members[]{name,pet,registered_at}',
    word: 'okapi',
    createdAt: '2026-11-26T12:00:00.000Z',
  },
  // Team B.
  {
    key: 'bMember orders',
    id: 'bbbbbbbb-7777-4777-8777-000000000001',
    memId: memId('borders'),
    userId: USERS.bMember.id,
    conversationId: CONVERSATIONS.bMember.id,
    messageId: 'bbbbbbbb-eeee-4eee-8eee-000000000001',
    toolUseId: SHARED_TOOL_USE,
    toolName: 'search_orders',
    toolInput: { customer: 'bea' },
    toolOutput: { orders: [{ id: 7, placed_at: '2026-11-21', note: 'capybara' }] },
    spaceGeneration: 1,
    compacted: false,
    summary: '1 order',
    schemaHint: 'orders[]{id,note,placed_at}',
    word: 'capybara',
    createdAt: '2026-11-22T09:00:00.000Z',
  },
  {
    key: 'bMember runbook',
    id: 'bbbbbbbb-7777-4777-8777-000000000002',
    memId: memId('bfile'),
    userId: USERS.bMember.id,
    conversationId: CONVERSATIONS.bMember.id,
    messageId: 'bbbbbbbb-eeee-4eee-8eee-000000000002',
    toolUseId: 'toolu_01BMemberRunbook',
    toolName: 'read_file',
    toolInput: { path: 'runbook.md' },
    toolOutput: 'Runbook\nrestart the ocelot service, then check the queue\n',
    spaceGeneration: 1,
    compacted: true,
    summary: null,
    schemaHint: null,
    word: 'ocelot',
    createdAt: '2026-11-22T09:10:00.000Z',
  },
  {
    key: 'bAdmin site data',
    id: 'bbbbbbbb-7777-4777-8777-000000000003',
    memId: memId('bsite'),
    userId: USERS.bAdmin.id,
    conversationId: CONVERSATIONS.bAdmin.id,
    messageId: 'bbbbbbbb-eeee-4eee-8eee-000000000003',
    toolUseId: 'toolu_01BAdminSite',
    toolName: 'query_site_data',
    toolInput: { target: 'recent_members' },
    toolOutput: { members: [{ name: 'Bea', registered_at: '2026-11-03', pet: 'tapir' }] },
    spaceGeneration: 1,
    compacted: false,
    summary: '1 key: members[1]; newest 2026-11-03',
    schemaHint: 'members[]{name,pet,registered_at}',
    word: 'tapir',
    createdAt: '2026-11-22T10:00:00.000Z',
  },
  {
    key: 'bMember sealed notes',
    id: 'bbbbbbbb-7777-4777-8777-000000000004',
    memId: memId('bsealed'),
    userId: USERS.bMember.id,
    conversationId: CONVERSATIONS.bMemberSealed.id,
    messageId: 'bbbbbbbb-eeee-4eee-8eee-000000000004',
    toolUseId: 'toolu_01BMemberSealed',
    toolName: 'read_file',
    toolInput: { path: 'q3.md' },
    toolOutput: 'frozen notes about the ibex migration',
    spaceGeneration: 1,
    compacted: false,
    summary: null,
    schemaHint: null,
    word: 'ibex',
    createdAt: '2026-11-10T09:00:00.000Z',
  },
  // Team C.
  {
    key: 'cMember orders',
    id: 'cccccccc-7777-4777-8777-000000000001',
    memId: memId('corders'),
    userId: USERS.cMember.id,
    conversationId: CONVERSATIONS.cMember.id,
    messageId: 'cccccccc-eeee-4eee-8eee-000000000001',
    toolUseId: 'toolu_01CMemberOrders',
    toolName: 'search_orders',
    toolInput: { customer: 'cy' },
    toolOutput: { orders: [{ id: 9, placed_at: '2026-11-22', note: 'gecko' }] },
    spaceGeneration: 1,
    compacted: false,
    summary: '1 key: orders[1]; newest 2026-11-22',
    schemaHint: 'orders[]{id,note,placed_at}',
    word: 'gecko',
    createdAt: '2026-11-23T09:00:00.000Z',
  },
  {
    key: 'cAdmin memo',
    id: 'cccccccc-7777-4777-8777-000000000002',
    memId: memId('cfile'),
    userId: USERS.cAdmin.id,
    conversationId: CONVERSATIONS.cAdmin.id,
    messageId: 'cccccccc-eeee-4eee-8eee-000000000002',
    toolUseId: 'toolu_01CAdminMemo',
    toolName: 'read_file',
    toolInput: { path: 'memo.txt' },
    toolOutput: 'C admin memo: the lemur rota changes on Monday',
    spaceGeneration: 1,
    compacted: false,
    summary: null,
    schemaHint: null,
    word: 'lemur',
    createdAt: '2026-11-23T10:00:00.000Z',
  },
  {
    key: 'cMember retired archive',
    id: 'cccccccc-7777-4777-8777-000000000003',
    memId: memId('cretired'),
    userId: USERS.cMember.id,
    conversationId: CONVERSATIONS.cMemberRetired.id,
    messageId: 'cccccccc-eeee-4eee-8eee-000000000003',
    toolUseId: 'toolu_01CMemberArchive',
    toolName: 'read_file',
    toolInput: { path: 'archive.txt' },
    toolOutput: 'archived: the marmot count of October',
    spaceGeneration: 1,
    compacted: false,
    summary: null,
    schemaHint: null,
    word: 'marmot',
    createdAt: '2026-11-06T09:00:00.000Z',
  },
];

/** The payload as the handle measured it: a string as it is, any other JSON as its text. */
const payloadText = (output: unknown): string => (typeof output === 'string' ? output : JSON.stringify(output));

/** The day the previous release began writing v3 stubs; older snapshots kept their v2 ones. */
const STUB_V3_SINCE = '2026-11-21';

/** What the handle of a snapshot held: sizes, a one-line head preview and the stub, derived from the row above. */
export function handleOf(s: OldSnapshot): {
  sizeChars: number;
  sizeTokens: number;
  summary: string;
  headPreview: string | null;
  stub: string;
} {
  const text = payloadText(s.toolOutput);
  const sizeChars = text.length;
  const summary = s.summary ?? `${s.toolName} result, ${sizeChars} chars`;
  const line = text.replace(/\s+/g, ' ').trim();
  const headPreview = line.length === 0 ? null : line.length <= 120 ? line : `${line.slice(0, 119)}…`;
  // Stubs are stored and never rewritten: a snapshot keeps the stub version of its day.
  const stub = [
    `[recall-ledger tool_memory ${s.createdAt < STUB_V3_SINCE ? 'v2' : 'v3'}]`,
    `tool=${s.toolName}`,
    `size_original=${sizeChars} chars`,
    `summary: ${summary}`,
    ...(headPreview === null ? [] : [`preview: ${headPreview.slice(0, 30)}…`]),
    `re-expand: recall_tool_result(mem_id='${s.memId}', format="full")`,
  ].join('\n');
  return { sizeChars, sizeTokens: Math.ceil(sizeChars / 4), summary, headPreview, stub };
}

// ---------------------------------------------------------------------------------------------
// Team summary rules (the stored summaries above follow them; team C has none) and feature-flag
// overrides (the global defaults are the migrations' rows)

const ORDERS_RULE = {
  version: 1,
  rules: [
    {
      parts: [
        { kind: 'count', path: 'orders', label: 'orders', singular: 'order' },
        { kind: 'maxDate', path: 'orders', field: 'placed_at', label: 'latest', optional: true },
      ],
    },
  ],
};

const MEMBERS_RULE = { version: 1, rules: [{ parts: [{ kind: 'count', path: 'members', label: 'members', singular: 'member' }] }] };

const ORDER_COUNT_RULE = { version: 1, rules: [{ parts: [{ kind: 'count', path: 'orders', label: 'orders', singular: 'order' }] }] };

export const SUMMARY_RULES: OldSummaryRule[] = [
  {
    teamId: TEAMS.a.id,
    toolName: 'search_orders',
    rule: ORDERS_RULE,
    version: 3,
    createdAt: '2026-11-04T10:00:00.000Z',
    updatedAt: '2026-11-19T10:00:00.000Z',
  },
  {
    teamId: TEAMS.a.id,
    toolName: 'query_site_data',
    rule: MEMBERS_RULE,
    version: 1,
    createdAt: '2026-11-04T11:00:00.000Z',
    updatedAt: '2026-11-04T11:00:00.000Z',
  },
  {
    teamId: TEAMS.b.id,
    toolName: 'search_orders',
    rule: ORDER_COUNT_RULE,
    version: 2,
    createdAt: '2026-11-05T10:00:00.000Z',
    updatedAt: '2026-11-06T10:00:00.000Z',
  },
];

/** Rows of feature_flags with a team_id (the previous release kept overrides beside the defaults). */
export const FLAG_OVERRIDES: OldFlagOverride[] = [
  { teamId: TEAMS.a.id, key: 'recall_feedback_enabled', enabled: true },
  { teamId: TEAMS.b.id, key: 'recall_feedback_enabled', enabled: true },
  { teamId: TEAMS.b.id, key: 'recall_query_text_enabled', enabled: true },
  // The same value as the default, set on purpose: still an override row.
  { teamId: TEAMS.c.id, key: 'recall_feedback_enabled', enabled: false },
];

// ---------------------------------------------------------------------------------------------
// Recall events and the feedback judging them

const FINGERPRINT = (seed: string) => seed.padEnd(64, '0');

const snapshot = (key: string): OldSnapshot => {
  const found = SNAPSHOTS.find((s) => s.key === key);
  if (!found) throw new Error(`no snapshot ${key} in the fixture`);
  return found;
};
const ref = (key: string, rank: number): OldRef => ({ type: 'TOOL_RESULT', id: snapshot(key).id, rank });

export const RECALL_EVENTS: OldRecallEvent[] = [
  {
    // Before the bump: hidden with its space's generation 1.
    id: 'rec_01JDAAAAAAAAAAAAAAAAAAAA01',
    teamId: TEAMS.a.id,
    profileId: USERS.aMember.id,
    spaceId: SPACES.aMain.id,
    spaceGeneration: 1,
    queryFingerprint: null,
    queryText: null,
    contractVersion: 'recall-ledger.recall.v1',
    rankingVersion: 'recency-v1',
    fusionMode: null,
    searchFreshness: null,
    degradedBranches: [],
    results: [ref('aMember gen-1 orders', 1)],
    toolNames: ['search_orders'],
    semanticGroups: null,
    authoredAlternatives: null,
    clarificationOutcome: null,
    source: 'INTERNAL',
    createdAt: '2026-11-20T09:10:00.000Z',
  },
  {
    id: 'rec_01JDAAAAAAAAAAAAAAAAAAAA02',
    teamId: TEAMS.a.id,
    profileId: USERS.aMember.id,
    spaceId: SPACES.aMain.id,
    spaceGeneration: 2,
    queryFingerprint: null,
    queryText: null,
    contractVersion: 'recall-ledger.recall.v1',
    rankingVersion: 'recency-v1',
    fusionMode: null,
    searchFreshness: null,
    degradedBranches: [],
    results: [ref('aMember file', 1), ref('aMember orders', 2)],
    toolNames: ['read_file', 'search_orders'],
    semanticGroups: null,
    authoredAlternatives: null,
    clarificationOutcome: null,
    source: 'INTERNAL',
    createdAt: '2026-11-25T11:00:00.000Z',
  },
  {
    id: 'rec_01JDAAAAAAAAAAAAAAAAAAAA03',
    teamId: TEAMS.a.id,
    profileId: USERS.aAdmin.id,
    spaceId: SPACES.aMain.id,
    spaceGeneration: 2,
    queryFingerprint: FINGERPRINT('a3'),
    queryText: null,
    contractVersion: 'graph-retriever.v2',
    rankingVersion: 'graph-v7',
    fusionMode: 'rrf',
    searchFreshness: 'stale-5m',
    degradedBranches: ['vector'],
    results: [{ type: 'RELATIONSHIP', id: 'r_members_pets', rank: 1 }, ref('aAdmin site data', 2)],
    toolNames: ['query_site_data'],
    semanticGroups: [{ label: 'members', refs: ['r_members_pets'] }],
    authoredAlternatives: [{ query: 'who owns the okapi' }],
    clarificationOutcome: 'not_needed',
    source: 'EXTERNAL',
    createdAt: '2026-11-26T12:30:00.000Z',
  },
  {
    // Team B opted in to query texts: this one kept its text.
    id: 'rec_01JDBBBBBBBBBBBBBBBBBBBB01',
    teamId: TEAMS.b.id,
    profileId: USERS.bMember.id,
    spaceId: SPACES.bMain.id,
    spaceGeneration: 1,
    queryFingerprint: FINGERPRINT('b1'),
    queryText: 'capybara orders',
    contractVersion: 'recall-ledger.recall.v1',
    rankingVersion: 'fts-simple-rank-v1',
    fusionMode: null,
    searchFreshness: null,
    degradedBranches: [],
    results: [ref('bMember orders', 1)],
    toolNames: ['search_orders'],
    semanticGroups: null,
    authoredAlternatives: null,
    clarificationOutcome: null,
    source: 'INTERNAL',
    createdAt: '2026-11-22T13:00:00.000Z',
  },
  {
    id: 'rec_01JDCCCCCCCCCCCCCCCCCCCC01',
    teamId: TEAMS.c.id,
    profileId: USERS.cMember.id,
    spaceId: SPACES.cMain.id,
    spaceGeneration: 1,
    queryFingerprint: FINGERPRINT('c1'),
    queryText: null,
    contractVersion: 'graph-retriever.v2',
    rankingVersion: null,
    fusionMode: null,
    searchFreshness: null,
    degradedBranches: [],
    results: [{ type: 'EVIDENCE', id: 'ev_gecko', rank: 1 }, ref('cMember orders', 2)],
    toolNames: ['search_orders'],
    semanticGroups: null,
    authoredAlternatives: null,
    clarificationOutcome: null,
    source: 'EXTERNAL',
    createdAt: '2026-11-23T11:00:00.000Z',
  },
  {
    // In the retired space: hidden.
    id: 'rec_01JDCCCCCCCCCCCCCCCCCCCC02',
    teamId: TEAMS.c.id,
    profileId: USERS.cMember.id,
    spaceId: SPACES.cRetired.id,
    spaceGeneration: 1,
    queryFingerprint: null,
    queryText: null,
    contractVersion: 'recall-ledger.recall.v1',
    rankingVersion: 'recency-v1',
    fusionMode: null,
    searchFreshness: null,
    degradedBranches: [],
    results: [ref('cMember retired archive', 1)],
    toolNames: ['read_file'],
    semanticGroups: null,
    authoredAlternatives: null,
    clarificationOutcome: null,
    source: 'INTERNAL',
    createdAt: '2026-11-06T09:30:00.000Z',
  },
];

export const FEEDBACK_EVENTS: OldFeedbackEvent[] = [
  {
    id: 'fb_01JDAAAAAAAAAAAAAAAAAAAA01',
    recallEventId: 'rec_01JDAAAAAAAAAAAAAAAAAAAA01',
    actorId: USERS.aMember.id,
    used: true,
    answerSupported: true,
    quality: 'MEDIUM',
    missingContext: null,
    irrelevant: null,
    feedbackComment: null,
    irrelevantResultRefs: [],
    hypothesisFeedback: [],
    clientFeedbackId: null,
    itemDigest: null,
    createdAt: '2026-11-20T09:20:00.000Z',
  },
  {
    id: 'fb_01JDAAAAAAAAAAAAAAAAAAAA02',
    recallEventId: 'rec_01JDAAAAAAAAAAAAAAAAAAAA02',
    actorId: USERS.aMember.id,
    used: true,
    answerSupported: true,
    quality: 'HIGH',
    missingContext: false,
    irrelevant: false,
    feedbackComment: 'the quokka order was the one',
    irrelevantResultRefs: [],
    hypothesisFeedback: [],
    clientFeedbackId: 'a-member-0001',
    itemDigest: FINGERPRINT('da02'),
    createdAt: '2026-11-25T11:05:00.000Z',
  },
  {
    id: 'fb_01JDAAAAAAAAAAAAAAAAAAAA03',
    recallEventId: 'rec_01JDAAAAAAAAAAAAAAAAAAAA03',
    actorId: USERS.aAdmin.id,
    used: false,
    answerSupported: false,
    quality: 'LOW',
    missingContext: true,
    irrelevant: true,
    feedbackComment: 'the relationship was about another okapi',
    irrelevantResultRefs: [{ type: 'RELATIONSHIP', id: 'r_members_pets', rank: 1 }],
    hypothesisFeedback: [{ hypothesisId: 'hyp_okapi_owner', used: false, contradicted: true, feedbackComment: 'wrong owner' }],
    clientFeedbackId: null,
    itemDigest: null,
    createdAt: '2026-11-26T12:40:00.000Z',
  },
  {
    id: 'fb_01JDBBBBBBBBBBBBBBBBBBBB01',
    recallEventId: 'rec_01JDBBBBBBBBBBBBBBBBBBBB01',
    actorId: USERS.bMember.id,
    used: true,
    answerSupported: null,
    quality: 'MEDIUM',
    missingContext: null,
    irrelevant: null,
    feedbackComment: null,
    irrelevantResultRefs: [],
    hypothesisFeedback: [],
    clientFeedbackId: 'b-member-0001',
    itemDigest: FINGERPRINT('db01'),
    createdAt: '2026-11-22T13:10:00.000Z',
  },
  {
    id: 'fb_01JDCCCCCCCCCCCCCCCCCCCC01',
    recallEventId: 'rec_01JDCCCCCCCCCCCCCCCCCCCC01',
    actorId: USERS.cMember.id,
    used: true,
    answerSupported: true,
    quality: 'HIGH',
    missingContext: null,
    irrelevant: null,
    feedbackComment: null,
    irrelevantResultRefs: [],
    hypothesisFeedback: [],
    clientFeedbackId: null,
    itemDigest: null,
    createdAt: '2026-11-23T11:10:00.000Z',
  },
  {
    id: 'fb_01JDCCCCCCCCCCCCCCCCCCCC02',
    recallEventId: 'rec_01JDCCCCCCCCCCCCCCCCCCCC02',
    actorId: USERS.cMember.id,
    used: false,
    answerSupported: null,
    quality: null,
    missingContext: true,
    irrelevant: null,
    feedbackComment: 'nothing about the marmots',
    irrelevantResultRefs: [],
    hypothesisFeedback: [],
    clientFeedbackId: null,
    itemDigest: null,
    createdAt: '2026-11-06T09:40:00.000Z',
  },
];

export const recallEventOf = (feedback: OldFeedbackEvent): OldRecallEvent => {
  const event = RECALL_EVENTS.find((e) => e.id === feedback.recallEventId);
  if (!event) throw new Error(`no recall event ${feedback.recallEventId} in the fixture`);
  return event;
};

// ---------------------------------------------------------------------------------------------
// The fill: the previous release's tables, in the order of their foreign keys, in one transaction

const json = (value: unknown) => JSON.stringify(value);
const minutesAfter = (at: string, minutes: number) => new Date(Date.parse(at) + minutes * 60_000).toISOString();

export async function fillPreviousRelease(db: Client): Promise<void> {
  await db.query('begin');
  try {
    for (const team of Object.values(TEAMS)) {
      await db.query('insert into teams (id, created_at) values ($1, $2)', [team.id, team.createdAt]);
    }
    for (const user of Object.values(USERS)) {
      const team = Object.values(TEAMS).find((t) => t.id === user.teamId);
      await db.query('insert into users (id, team_id, created_at) values ($1, $2, $3)', [user.id, user.teamId, team?.createdAt]);
    }
    for (const space of Object.values(SPACES) as OldSpace[]) {
      await db.query(
        `insert into spaces (id, team_id, name, generation, status, created_at, updated_at)
         values ($1, $2, $3, $4, $5::space_status, $6, $7)`,
        [space.id, space.teamId, space.name, space.generation, space.status, space.createdAt, minutesAfter(space.createdAt, 60 * 24 * 7)],
      );
      for (const [i, userId] of space.memberIds.entries()) {
        await db.query('insert into space_members (space_id, user_id, created_at) values ($1, $2, $3)', [
          space.id,
          userId,
          minutesAfter(space.createdAt, i + 1),
        ]);
      }
    }
    for (const c of Object.values(CONVERSATIONS)) {
      await db.query('insert into conversations (id, user_id, space_id, created_at) values ($1, $2, $3, $4)', [
        c.id,
        c.userId,
        c.spaceId,
        c.createdAt,
      ]);
    }
    for (const s of SNAPSHOTS) {
      const team = Object.values(USERS).find((u) => u.id === s.userId)?.teamId;
      const handle = handleOf(s);
      await db.query(`insert into messages (id, conversation_id, user_id, role, created_at) values ($1, $2, $3, 'assistant', $4)`, [
        s.messageId,
        s.conversationId,
        s.userId,
        s.createdAt,
      ]);
      await db.query(
        `insert into message_tool_results (id, team_id, user_id, message_id, conversation_id, tool_name, tool_input, tool_output, created_at,
           tool_use_id, mem_id, size_chars, summary_oneliner, schema_hint, head_preview, stub, size_tokens, compacted, space_generation)
         values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`,
        [
          s.id,
          team,
          s.userId,
          s.messageId,
          s.conversationId,
          s.toolName,
          json(s.toolInput),
          json(s.toolOutput),
          s.createdAt,
          s.toolUseId,
          s.memId,
          handle.sizeChars,
          handle.summary,
          s.schemaHint,
          handle.headPreview,
          handle.stub,
          handle.sizeTokens,
          s.compacted,
          s.spaceGeneration,
        ],
      );
    }
    for (const r of SUMMARY_RULES) {
      await db.query(
        'insert into tool_summary_rules (team_id, tool_name, rule, version, created_at, updated_at) values ($1, $2, $3::jsonb, $4, $5, $6)',
        [r.teamId, r.toolName, json(r.rule), r.version, r.createdAt, r.updatedAt],
      );
    }
    for (const f of FLAG_OVERRIDES) {
      await db.query(
        `insert into feature_flags (id, key, team_id, enabled, updated_at) values (gen_random_uuid(), $1, $2, $3, '2026-11-15T08:00:00Z')`,
        [f.key, f.teamId, f.enabled],
      );
    }
    for (const e of RECALL_EVENTS) {
      await db.query(
        `insert into recall_events (team_id, id, profile_id, space_id, space_generation, query_fingerprint, query_text, contract_version,
           ranking_version, fusion_mode, search_freshness, degraded_branches, results, semantic_groups, authored_alternatives,
           clarification_outcome, source, created_at, tool_names)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13::jsonb, $14::jsonb, $15::jsonb, $16, $17, $18, $19::text[])`,
        [
          e.teamId,
          e.id,
          e.profileId,
          e.spaceId,
          e.spaceGeneration,
          e.queryFingerprint,
          e.queryText,
          e.contractVersion,
          e.rankingVersion,
          e.fusionMode,
          e.searchFreshness,
          json(e.degradedBranches),
          json(e.results),
          e.semanticGroups === null ? null : json(e.semanticGroups),
          e.authoredAlternatives === null ? null : json(e.authoredAlternatives),
          e.clarificationOutcome,
          e.source,
          e.createdAt,
          e.toolNames,
        ],
      );
    }
    for (const f of FEEDBACK_EVENTS) {
      const e = recallEventOf(f);
      await db.query(
        `insert into feedback_events (team_id, id, recall_event_id, profile_id, actor_id, space_id, space_generation, query_fingerprint,
           contract_version, ranking_version, fusion_mode, search_freshness, degraded_branches, returned_refs, used, answer_supported, quality,
           missing_context, irrelevant, feedback_comment, irrelevant_result_refs, hypothesis_feedback, client_feedback_id, created_at,
           item_digest, tool_names)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb, $14::jsonb, $15, $16, $17, $18, $19, $20, $21::jsonb, $22::jsonb,
           $23, $24, $25, $26::text[])`,
        [
          e.teamId,
          f.id,
          e.id,
          e.profileId,
          f.actorId,
          e.spaceId,
          e.spaceGeneration,
          e.queryFingerprint,
          e.contractVersion,
          e.rankingVersion,
          e.fusionMode,
          e.searchFreshness,
          json(e.degradedBranches),
          json(e.results),
          f.used,
          f.answerSupported,
          f.quality,
          f.missingContext,
          f.irrelevant,
          f.feedbackComment,
          json(f.irrelevantResultRefs),
          json(f.hypothesisFeedback),
          f.clientFeedbackId,
          f.createdAt,
          f.itemDigest,
          e.toolNames,
        ],
      );
    }
    await db.query('commit');
  } catch (error) {
    await db.query('rollback');
    throw error;
  }
}
