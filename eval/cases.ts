import { DEFAULT_BLOCK_TOKEN_BUDGET } from '../src/config/setting-defaults';
import { renderPreviouslyFetchedBlock, RenderedBlock } from '../src/recall/block/previously-fetched-block';
import { summarizeToolResult } from '../src/tool-results/summarizer/summarize-tool-result';
import { o200kTokenizer } from '../src/common/text/tokenizer';
import { QUERY_KPI_TREND_DEFINITION, QUERY_SITE_DATA_DEFINITION, ToolDefinition, toolsForCase } from './tool-definitions';

/*
 * The release evals 1–3 of the recall design (R-EV-1). Every case is one conversation whose
 * system prompt carries the "Previously fetched" block exactly as the service renders it:
 * snapshots summarized by the production summarizer, rendered by the production renderer
 * under the production token budget.
 */

export type EvalId = 'as-of-date' | 'routing' | 'citation';

export const EVAL_IDS: readonly EvalId[] = ['as-of-date', 'routing', 'citation'];

export const EVAL_TITLES: Readonly<Record<EvalId, string>> = {
  'as-of-date': 'as-of-date adherence',
  routing: 'recall-vs-requery routing',
  citation: 'citation discipline',
};

export interface EvalSnapshot {
  id: string;
  memId: string;
  toolName: string;
  toolInput: Record<string, unknown>;
  toolOutput: unknown;
  createdAt: Date;
  /** The stored one-line summary, computed by the production summarizer. */
  summary: string;
  /** Phrases only an answer drawing on this snapshot would contain. */
  facts: readonly RegExp[];
}

interface ChatTurn {
  role: 'user' | 'assistant';
  content: string;
}

interface CaseBase {
  id: string;
  title: string;
  /** The day the conversation happens; the snapshots are older. */
  today: string;
  snapshots: readonly EvalSnapshot[];
  block: RenderedBlock;
  systemPrompt: string;
  /** Earlier turns of the same conversation, oldest first. */
  history: readonly ChatTurn[];
  userMessage: string;
  freshTool: ToolDefinition;
  tools: readonly ToolDefinition[];
  /** Ids of the snapshots the question is about. */
  subjectIds: readonly string[];
}

/** Eval 1: a figure shown in the block must come with "as of <its date>", or be fetched fresh. */
export interface AsOfDateCase extends CaseBase {
  eval: 'as-of-date';
  /** The historical figure the user asks about, as it would be written. */
  figure: RegExp;
}

/** Eval 2: a question about what was shown is answered from recall, one about now re-queries. */
export interface RoutingCase extends CaseBase {
  eval: 'routing';
  route: 'recall' | 'fresh';
}

/** Eval 3: an answer that uses a recalled snapshot names its date and its tool. */
export interface CitationCase extends CaseBase {
  eval: 'citation';
}

export type EvalCase = AsOfDateCase | RoutingCase | CitationCase;

const EVAL_TODAY = '2026-05-15';

function snapshot(fields: Omit<EvalSnapshot, 'summary' | 'createdAt'> & { createdAt: string }): EvalSnapshot {
  return {
    ...fields,
    createdAt: new Date(fields.createdAt),
    summary: summarizeToolResult(fields.toolName, fields.toolInput, fields.toolOutput),
  };
}

/** Seven days before EVAL_TODAY, like the eval-1 golden set of the design. */
const PLANS_SNAPSHOT = snapshot({
  id: 'snap-plans',
  memId: 'mem_evalplansaaaaaaa',
  toolName: 'query_site_data',
  toolInput: { target: 'memberships' },
  toolOutput: {
    plans: [
      { name: 'Starter Pack', price: 19, active_members: 23 },
      { name: 'Pro Monthly', price: 49, active_members: 17 },
      { name: 'Pro Annual', price: 490, active_members: 9 },
      { name: 'Team', price: 149, active_members: 4 },
      { name: 'Founders', price: 0, active_members: 2 },
    ],
  },
  createdAt: '2026-05-08T16:40:00Z',
  facts: [/\bStarter Pack\b/i, /\b(?:5|five) (?:membership )?plans\b/i, /\bPro (?:Monthly|Annual)\b/i],
});

const TREND_SNAPSHOT = snapshot({
  id: 'snap-trend',
  memId: 'mem_evaltrendaaaaaaa',
  toolName: 'query_kpi_trend',
  toolInput: { metric: 'active_members', granularity: 'week' },
  toolOutput: {
    metric: 'active_members',
    granularity: 'week',
    points: [
      { period: '2026-03-23', value: 50 },
      { period: '2026-03-30', value: 51 },
      { period: '2026-04-06', value: 52 },
      { period: '2026-04-13', value: 53 },
      { period: '2026-04-20', value: 54 },
      { period: '2026-04-27', value: 55 },
      { period: '2026-05-04', value: 56 },
    ],
  },
  createdAt: '2026-05-12T10:02:00Z',
  facts: [/\+?\b12 ?%|\b12 percent\b/i, /\b(?:7|seven)[- ]weeks?\b/i, /\bfrom 50 to 56\b|\b50 to 56\b/i],
});

const MEMBERS_SNAPSHOT = snapshot({
  id: 'snap-members',
  memId: 'mem_evalmembersaaaaa',
  toolName: 'query_site_data',
  toolInput: { target: 'recent_members' },
  toolOutput: {
    members: [
      { name: 'Ada', plan: 'Starter Pack', registered_at: '2026-04-28T09:12:00Z' },
      { name: 'Bo', plan: 'Pro Monthly', registered_at: '2026-04-30T17:40:00Z' },
      { name: 'Cy', plan: 'Starter Pack', registered_at: '2026-05-02T08:05:00Z' },
      { name: 'Dee', plan: 'Team', registered_at: '2026-05-03T12:30:00Z' },
      { name: 'Eli', plan: 'Starter Pack', registered_at: '2026-05-06T19:55:00Z' },
      { name: 'Fay', plan: 'Pro Annual', registered_at: '2026-05-07T07:21:00Z' },
      { name: 'Gus', plan: 'Starter Pack', registered_at: '2026-05-09T14:48:00Z' },
      { name: 'Hal', plan: 'Pro Monthly', registered_at: '2026-05-10T21:16:00Z' },
    ],
  },
  createdAt: '2026-05-12T10:05:00Z',
  facts: [/\b(?:8|eight) (?:new |recent |newest )?(?:members|sign-?ups|registrations)\b/i, /\blast registered\b/i],
});

/** Newest first, as the service loads them (K = 5 most recent; this conversation has three). */
const CONVERSATION_SNAPSHOTS: readonly EvalSnapshot[] = [MEMBERS_SNAPSHOT, TREND_SNAPSHOT, PLANS_SNAPSHOT];

const BASE_SYSTEM_PROMPT = [
  "You are the data assistant of a membership business. You answer the owner's questions about members,",
  'plans and KPIs, and use the tools when you need data.',
  `Today's date is ${EVAL_TODAY}.`,
].join('\n');

/** The block through the production renderer, under the production budget and tokenizer. */
function renderCaseBlock(snapshots: readonly EvalSnapshot[]): RenderedBlock {
  return renderPreviouslyFetchedBlock(
    snapshots.map((s) => ({
      id: s.id,
      memId: s.memId,
      toolName: s.toolName,
      toolInput: s.toolInput,
      createdAt: s.createdAt,
      handle: { summaryOneliner: s.summary },
    })),
    { tokenBudget: DEFAULT_BLOCK_TOKEN_BUDGET, tokenizer: o200kTokenizer },
  );
}

/** The host appends the block (which has no trailing newline) after its own prompt. */
function composeSystemPrompt(block: RenderedBlock): string {
  return block.text === '' ? BASE_SYSTEM_PROMPT : `${BASE_SYSTEM_PROMPT}\n\n${block.text}`;
}

/** What every case of this conversation shares (a case may override `history`). */
function conversationWith(
  freshTool: ToolDefinition,
): Pick<CaseBase, 'today' | 'snapshots' | 'block' | 'systemPrompt' | 'freshTool' | 'tools' | 'history'> {
  const block = renderCaseBlock(CONVERSATION_SNAPSHOTS);
  return {
    today: EVAL_TODAY,
    snapshots: CONVERSATION_SNAPSHOTS,
    block,
    systemPrompt: composeSystemPrompt(block),
    freshTool,
    tools: toolsForCase(freshTool),
    history: [],
  };
}

const PLANS_QUESTION = 'What membership plans did you show me last time?';

export const EVAL_CASES: readonly EvalCase[] = [
  {
    ...conversationWith(QUERY_SITE_DATA_DEFINITION),
    id: 'as-of-date.starter-pack-active',
    eval: 'as-of-date',
    title: 'a figure shown in a 7-day-old snapshot is dated, or fetched fresh',
    userMessage: 'How many active members do I have on the Starter Pack plan?',
    subjectIds: [PLANS_SNAPSHOT.id],
    figure: /\b23\b/,
  },
  {
    ...conversationWith(QUERY_SITE_DATA_DEFINITION),
    id: 'routing.plans-shown-last-time',
    eval: 'routing',
    title: '"what did you show me last time?" is answered from recall',
    userMessage: PLANS_QUESTION,
    subjectIds: [PLANS_SNAPSHOT.id],
    route: 'recall',
  },
  {
    ...conversationWith(QUERY_SITE_DATA_DEFINITION),
    id: 'routing.members-right-now',
    eval: 'routing',
    title: '"how many members now?" in the same conversation calls the data tool',
    history: [
      { role: 'user', content: PLANS_QUESTION },
      {
        role: 'assistant',
        content:
          'As of 2026-05-08 (query_site_data, target "memberships") I showed you 5 plans; Starter Pack was the ' +
          'largest with 23 active members.',
      },
    ],
    userMessage: 'And how many members do we have right now?',
    subjectIds: [MEMBERS_SNAPSHOT.id],
    route: 'fresh',
  },
  {
    ...conversationWith(QUERY_KPI_TREND_DEFINITION),
    id: 'citation.active-members-trend',
    eval: 'citation',
    title: 'a recalled trend names its date and query_kpi_trend',
    userMessage: 'Remind me what the active-members trend looked like when you pulled it.',
    subjectIds: [TREND_SNAPSHOT.id],
  },
  {
    ...conversationWith(QUERY_SITE_DATA_DEFINITION),
    id: 'citation.recent-signups',
    eval: 'citation',
    title: 'recalled sign-ups name the fetch date (not the last sign-up date) and query_site_data',
    userMessage: 'What did you find about recent sign-ups before?',
    subjectIds: [MEMBERS_SNAPSHOT.id],
  },
];

export function findCase(caseId: string, cases: readonly EvalCase[] = EVAL_CASES): EvalCase | undefined {
  return cases.find((c) => c.id === caseId);
}

export function snapshotsOf(testCase: EvalCase, ids: readonly string[]): EvalSnapshot[] {
  return testCase.snapshots.filter((s) => ids.includes(s.id));
}
