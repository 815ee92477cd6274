/** Set-up and checks the recall feedback e2e files share: teams with feedback on, recall events, submissions. */
import {
  FEEDBACK_ID,
  RECORD_EVENT,
  SUBMIT,
  type BatchError,
  type FeedbackInput,
  type Payload,
  type RecallEventInput,
} from './feedback-api';
import type { SpaceMember } from './fixtures';
import { gql, ok, type GraphqlResponse } from './graphql';
import { newMember, newSpace, setFlag } from './tenancy';
import { createTestApp, identity, type TestApp, type TestIdentity } from './test-app';

/** Statements past this are cancelled: the row-lock test (feedback-batches) turns a held lock into a real database fault. */
export const STATEMENT_TIMEOUT_MS = 1500;

export const FEEDBACK_FLAG = 'recall_feedback_enabled';
export const FEEDBACK_SCOPES = ['memory:read', 'memory:write', 'feedback:write'];

/** The app every feedback e2e file runs against, on a database of its own. */
export function createFeedbackApp(env: Record<string, string> = {}): Promise<TestApp> {
  return createTestApp({ DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS), ...env });
}

/** A team with feedback on: its admin and a member (memory + feedback:write) of its spaces. */
export interface Team {
  admin: TestIdentity;
  member: SpaceMember;
  spaces: string[];
}

/** A new team with `spaceCount` spaces, a member of all of them, and feedback enabled. */
export async function newTeam(t: TestApp, spaceCount = 1, { enabled = true } = {}): Promise<Team> {
  const admin = await identity(['admin']);
  const spaces: string[] = [];
  for (let i = 0; i < spaceCount; i += 1) spaces.push(await newSpace(t, admin, 'feedback'));
  const member = await newMember(t, admin, spaces, FEEDBACK_SCOPES);
  if (enabled) await setFlag(t, admin, FEEDBACK_FLAG, true);
  return { admin, member: { ...member, spaceId: spaces[0] }, spaces };
}

/** The refs an external retriever returned, seed-style: a relationship, evidence and a hypothesis. */
const DEFAULT_RESULTS = [
  { type: 'RELATIONSHIP', id: 'r_ok', rank: 1 },
  { type: 'EVIDENCE', id: 'ev_button', rank: 2 },
  { type: 'HYPOTHESIS', id: 'hyp_ok', rank: 3 },
];

/** An item judged used, supported and HIGH (no comment needed), with the overrides on top. */
export const fine = (recallEventId: string, overrides: Partial<FeedbackInput> = {}): FeedbackInput => ({
  recallEventId,
  used: true,
  answerSupported: true,
  quality: 'HIGH',
  ...overrides,
});

/** An external recall event (recordRecallEvent) in a space of the member's. */
export async function recallEvent(t: TestApp, who: TestIdentity, input: RecallEventInput): Promise<string> {
  const full = { query: 'why does the save button do nothing', contractVersion: 'graph-retriever.v2', results: DEFAULT_RESULTS, ...input };
  return (await ok<{ recordRecallEvent: { id: string } }>(t, RECORD_EVENT, { input: full }, who.token)).recordRecallEvent.id;
}

export async function recallEvents(t: TestApp, who: TestIdentity, spaceId: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 1) ids.push(await recallEvent(t, who, { spaceId }));
  return ids;
}

export const submit = (
  t: TestApp,
  who: TestIdentity,
  recalls: FeedbackInput[],
): Promise<GraphqlResponse<{ submitRecallFeedback: Payload }>> =>
  gql<{ submitRecallFeedback: Payload }>(t, SUBMIT, { input: { recalls } }, who.token);

export async function submitOk(t: TestApp, who: TestIdentity, recalls: FeedbackInput[]): Promise<Payload> {
  return (await ok<{ submitRecallFeedback: Payload }>(t, SUBMIT, { input: { recalls } }, who.token)).submitRecallFeedback;
}

/** Stored feedback events matching a SQL condition on feedback_events. */
export const countFeedbackRows = async (t: TestApp, where: string, params: unknown[]) =>
  Number((await t.sql.query(`select count(*) from feedback_events where ${where}`, params)).rows[0].count);
export const rowsFor = (t: TestApp, recallEventId: string) => countFeedbackRows(t, 'recall_event_id = $1', [recallEventId]);
export const teamRows = (t: TestApp, teamId: string) => countFeedbackRows(t, 'team_id = $1', [teamId]);

/** The partial-failure invariants every stopped batch keeps (R-FB-2). */
export function expectStopped(payload: Payload, failedIndex: number, code: string, nextAction: string): BatchError {
  expect(payload.error).toMatchObject({ failedIndex, code, nextAction });
  expect(payload.recordedCount).toBe(failedIndex);
  expect(payload.feedbackEventIds).toHaveLength(failedIndex);
  for (const id of payload.feedbackEventIds) expect(id).toMatch(FEEDBACK_ID);
  expect(payload.error!.message.length).toBeGreaterThan(0);
  expect(payload.error!.remediation).toMatch(/^[A-Z].{10,}\.$/s);
  return payload.error!;
}
