/**
 * R-FB-10 offline use, end to end: recall events and feedback recorded through the API, exported
 * by the real CLI (`src/cli/feedback-export.cli.ts`, a child process on the test database) as
 * versioned, redacted cases, then a baseline and a candidate run over those cases compared by
 * the real compare CLI (`src/cli/feedback-compare.cli.ts`).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { normalizeQuery } from '../../../src/recall-events/recall-event.checks';
import { ok } from '../../support/graphql';
import { newMember, newSpace, setFlag } from '../../support/tenancy';
import { createTestApp, identity, type TestApp, type TestIdentity } from '../../support/test-app';

const ROOT = join(__dirname, '..', '..', '..');
const CLI_TIMEOUT_MS = 60_000;
const SCHEMA = 'recall-ledger.feedback-case.v1';
const FEEDBACK_ID = /^fb_[0-9A-HJKMNP-TV-Z]{26}$/;

const RECORD_EVENT = `mutation($input: RecallEventInput!) { recordRecallEvent(input: $input) { id } }`;
const SUBMIT = `mutation($input: RecallFeedbackBatchInput!) {
  submitRecallFeedback(input: $input) { recordedCount feedbackEventIds error { failedIndex code message } }
}`;

const RESULTS = [
  { type: 'RELATIONSHIP', id: 'r_stale_ui', rank: 1 },
  { type: 'EVIDENCE', id: 'ev_button', rank: 2 },
  { type: 'HYPOTHESIS', id: 'hyp_ok', rank: 3 },
];
/** Team A opted in to query text; team B did not, and its query must never leave the database. */
const QUERY_A = 'Why does the SAVE button do nothing?';
const QUERY_B = 'zebra roadmap question for Project Nightjar';
const GITHUB_TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
const RAW_COMMENT =
  'Returned the wrong customer: alice.jones@example.com, card 4111 1111 1111 1111, phone 5551234567; snapshot as of 2026-05-12.';
const REDACTED_COMMENT = 'Returned the wrong customer: [email], card [digits], phone [digits]; snapshot as of 2026-05-12.';
const RAW_HYPOTHESIS_COMMENT = `Contradicted by the ticket that quoted ${GITHUB_TOKEN} and bob@example.org.`;
const REDACTED_HYPOTHESIS_COMMENT = 'Contradicted by the ticket that quoted [token] and [email].';

const CASE_KEYS = [
  'schema',
  'caseId',
  'recallEventId',
  'teamId',
  'spaceId',
  'spaceGeneration',
  'createdAt',
  'contractVersion',
  'rankingVersion',
  'fusionMode',
  'searchFreshness',
  'degradedBranches',
  'queryFingerprint',
  'query',
  'returnedRefs',
  'judgment',
  'comment',
].sort();

interface Case {
  schema: string;
  caseId: string;
  recallEventId: string;
  teamId: string;
  spaceId: string;
  spaceGeneration: number;
  createdAt: string;
  contractVersion: string;
  rankingVersion: string | null;
  fusionMode: string | null;
  searchFreshness: string | null;
  degradedBranches: string[];
  queryFingerprint: string | null;
  query: string | null;
  returnedRefs: { type: string; id: string; rank: number | null }[];
  judgment: Record<string, unknown> & { hypothesisFeedback: { hypothesisId: string; feedbackComment: string | null }[] };
  comment: string | null;
}

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a CLI entry point as `npm run` would, with a clean database environment plus `env`. */
function runCli(script: string, args: string[], env: Record<string, string>): Promise<CliRun> {
  const { DATABASE_URL: _a, TEST_DATABASE_URL: _b, ...inherited } = process.env;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', '@swc-node/register', script, ...args], {
      cwd: ROOT,
      env: { ...inherited, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // A bound, not synchronisation: a CLI that hangs is killed before jest's timeout.
    const timer = setTimeout(() => child.kill('SIGKILL'), CLI_TIMEOUT_MS - 5000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('Feedback export and paired comparison (e2e, CLIs as child processes)', () => {
  let t: TestApp;
  let dir: string;
  let teamA: { admin: TestIdentity; member: TestIdentity; spaceId: string };
  let teamB: { admin: TestIdentity; member: TestIdentity; spaceId: string };
  let casesA: string[];
  let casesB: string[];
  let oldCase: string;
  let redactedCase: string;
  let since: string;

  async function newTeam(flags: string[]): Promise<{ admin: TestIdentity; member: TestIdentity; spaceId: string }> {
    const admin = await identity(['admin']);
    const spaceId = await newSpace(t, admin, 'export');
    const member = await newMember(t, admin, [spaceId], ['memory:read', 'memory:write', 'feedback:write']);
    for (const k of flags) await setFlag(t, admin, k, true);
    return { admin, member, spaceId };
  }

  async function recallEvents(who: TestIdentity, spaceId: string, query: string, n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i += 1) {
      const input = {
        spaceId,
        query,
        contractVersion: 'graph-retriever.v2',
        rankingVersion: 'hybrid-rrf-3',
        fusionMode: 'rrf',
        searchFreshness: 'vector_pending',
        degradedBranches: ['vector'],
        results: RESULTS,
      };
      ids.push((await ok<{ recordRecallEvent: { id: string } }>(t, RECORD_EVENT, { input }, who.token)).recordRecallEvent.id);
    }
    return ids;
  }

  async function submit(who: TestIdentity, recalls: Record<string, unknown>[]): Promise<string[]> {
    const payload = (
      await ok<{ submitRecallFeedback: { recordedCount: number; feedbackEventIds: string[]; error: unknown } }>(
        t,
        SUBMIT,
        { input: { recalls } },
        who.token,
      )
    ).submitRecallFeedback;
    expect(payload.error).toBeNull();
    expect(payload.recordedCount).toBe(recalls.length);
    return payload.feedbackEventIds;
  }

  const exportCli = (args: string[], env: Record<string, string> = { DATABASE_URL: t.database.url }) =>
    runCli('src/cli/feedback-export.cli.ts', args, env);
  const compareCli = (args: string[]) => runCli('src/cli/feedback-compare.cli.ts', args, {});
  const readCases = (file: string): Case[] =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Case);

  beforeAll(async () => {
    t = await createTestApp();
    dir = mkdtempSync(join(tmpdir(), 'rl-feedback-export-'));
    teamA = await newTeam(['recall_feedback_enabled', 'recall_query_text_enabled']);
    teamB = await newTeam(['recall_feedback_enabled']);

    // An event from a month ago: outside --since.
    const [oldRecall] = await recallEvents(teamA.member, teamA.spaceId, QUERY_A, 1);
    [oldCase] = await submit(teamA.member, [{ recallEventId: oldRecall, used: true, answerSupported: true, quality: 'HIGH' }]);
    await t.sql.query(`update feedback_events set created_at = now() - interval '30 days' where id = $1`, [oldCase]);
    since = new Date(Date.now() - 24 * 3600_000).toISOString();

    const recallsA = await recallEvents(teamA.member, teamA.spaceId, QUERY_A, 6);
    casesA = await submit(teamA.member, [
      {
        recallEventId: recallsA[0],
        used: true,
        answerSupported: false,
        quality: 'LOW',
        missingContext: true,
        irrelevant: true,
        feedbackComment: RAW_COMMENT,
        irrelevantResultRefs: [{ type: 'RELATIONSHIP', id: 'r_stale_ui' }],
        hypothesisFeedback: [
          { hypothesisId: 'hyp_ok', used: false, quality: 'LOW', contradicted: true, feedbackComment: RAW_HYPOTHESIS_COMMENT },
        ],
      },
      ...recallsA.slice(1).map((recallEventId) => ({ recallEventId, used: true, answerSupported: true, quality: 'HIGH' })),
    ]);
    redactedCase = casesA[0];
    const recallsB = await recallEvents(teamB.member, teamB.spaceId, QUERY_B, 4);
    casesB = await submit(
      teamB.member,
      recallsB.map((recallEventId) => ({ recallEventId, used: false, quality: 'MEDIUM' })),
    );
  }, 120_000);

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t?.close();
  });

  it(
    "R-FB-10 exports every team's feedback since --since as versioned, redacted cases; raw query text only for the team that opted in",
    async () => {
      const out = join(dir, 'cases.jsonl');
      const run = await exportCli(['--since', since, '--out', out]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`feedback:export wrote 10 cases (all teams, since ${since}) to ${out}`);

      const text = readFileSync(out, 'utf8');
      expect(text.endsWith('\n')).toBe(true);
      const cases = readCases(out);
      expect(cases).toHaveLength(10);
      expect(cases.map((c) => c.caseId).sort()).toEqual([...casesA, ...casesB].sort());
      expect(cases.map((c) => c.caseId)).not.toContain(oldCase);
      // Oldest first.
      const times = cases.map((c) => Date.parse(c.createdAt));
      expect(times).toEqual([...times].sort((a, b) => a - b));

      for (const c of cases) {
        expect(Object.keys(c).sort()).toEqual(CASE_KEYS);
        expect(c.schema).toBe(SCHEMA);
        expect(c.caseId).toMatch(FEEDBACK_ID);
        expect(c).toMatchObject({
          spaceGeneration: 1,
          contractVersion: 'graph-retriever.v2',
          rankingVersion: 'hybrid-rrf-3',
          fusionMode: 'rrf',
          searchFreshness: 'vector_pending',
          degradedBranches: ['vector'],
          returnedRefs: RESULTS,
        });
        if (c.teamId === teamA.member.teamId) {
          expect(c).toMatchObject({ spaceId: teamA.spaceId, query: QUERY_A, queryFingerprint: sha256(normalizeQuery(QUERY_A)) });
        } else {
          expect(c).toMatchObject({
            teamId: teamB.member.teamId,
            spaceId: teamB.spaceId,
            query: null,
            queryFingerprint: sha256(normalizeQuery(QUERY_B)),
          });
        }
      }

      const redacted = cases.find((c) => c.caseId === redactedCase)!;
      expect(redacted.comment).toBe(REDACTED_COMMENT);
      expect(redacted.judgment).toEqual({
        used: true,
        answerSupported: false,
        quality: 'LOW',
        missingContext: true,
        irrelevant: true,
        irrelevantResultRefs: [{ type: 'RELATIONSHIP', id: 'r_stale_ui', rank: 1 }],
        hypothesisFeedback: [
          { hypothesisId: 'hyp_ok', used: false, quality: 'LOW', contradicted: true, feedbackComment: REDACTED_HYPOTHESIS_COMMENT },
        ],
      });
      const bCase = cases.find((c) => c.teamId === teamB.member.teamId)!;
      expect(bCase).toMatchObject({
        comment: null,
        judgment: { used: false, answerSupported: null, quality: 'MEDIUM', hypothesisFeedback: [] },
      });

      // Nothing raw leaves: not the e-mail addresses, the digit runs, the token, team B's query, or who judged.
      for (const secret of ['alice.jones@example.com', 'bob@example.org', '4111 1111', '5551234567', GITHUB_TOKEN, QUERY_B, 'Nightjar']) {
        expect(text).not.toContain(secret);
      }
      for (const who of [teamA.member.userId, teamB.member.userId]) expect(text).not.toContain(who);
      // Read in pages of 3 (keyset on created_at, team_id, id): the same file, byte for byte.
      const paged = join(dir, 'cases-paged.jsonl');
      expect((await exportCli(['--since', since, '--out', paged, '--page-size', '3'])).code).toBe(0);
      expect(readFileSync(paged, 'utf8')).toBe(text);

      // The stored rows still hold the raw comment: redaction happens on the way out only.
      expect(
        (await t.sql.query('select feedback_comment from feedback_events where id = $1', [redactedCase])).rows[0].feedback_comment,
      ).toBe(RAW_COMMENT);
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'R-FB-10 --team limits the export to that team',
    async () => {
      const out = join(dir, 'team-b.jsonl');
      const run = await exportCli(['--since', since, '--out', out, '--team', teamB.member.teamId]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`wrote 4 cases (team ${teamB.member.teamId}`);
      const cases = readCases(out);
      expect(cases.map((c) => c.caseId).sort()).toEqual([...casesB].sort());
      expect(new Set(cases.map((c) => c.teamId))).toEqual(new Set([teamB.member.teamId]));
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'R-FB-10 without DATABASE_URL the export exits 1 naming DATABASE_URL and writes nothing; bad arguments exit 1 with the usage',
    async () => {
      const out = join(dir, 'never.jsonl');
      const missing = await exportCli(['--since', since, '--out', out], {});
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('DATABASE_URL is required');
      expect(existsSync(out)).toBe(false);

      const badDate = await exportCli(['--since', 'yesterday', '--out', out]);
      expect(badDate.code).toBe(1);
      expect(badDate.stderr).toContain('--since must be an ISO 8601 date');
      const badTeam = await exportCli(['--since', since, '--out', out, '--team', 'not-a-uuid']);
      expect(badTeam.code).toBe(1);
      expect(badTeam.stderr).toContain('--team must be a UUID');
      expect(existsSync(out)).toBe(false);
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'R-FB-10 compares a baseline and a candidate run over the exported cases: 7 wins, 2 losses, 1 tie, mean difference 0.3, sign-test p = 2·46/512 = 0.1797',
    async () => {
      const out = join(dir, 'cases-for-runs.jsonl');
      expect((await exportCli(['--since', since, '--out', out])).code).toBe(0);
      const ids = readCases(out).map((c) => c.caseId);
      expect(ids).toHaveLength(10);

      // Per case (candidate − baseline): +0.5 for the first 7, −0.25 for the next 2, 0 for the last.
      //   wins 7, losses 2, ties 1; mean = (7·0.5 − 2·0.25 + 0) / 10 = 3 / 10 = 0.3
      //   n = 9 non-tied, p = 2·(C(9,0) + C(9,1) + C(9,2)) / 2^9 = 2·(1 + 9 + 36) / 512 = 92/512 = 0.1796875
      const baseline = ids.map((caseId) => ({ caseId, score: 0.5 }));
      const candidate = ids.map((caseId, i) => ({ caseId, score: i < 7 ? 1 : i < 9 ? 0.25 : 0.5 }));
      baseline.push({ caseId: 'fb_only_in_baseline', score: 1 });
      candidate.push({ caseId: 'fb_only_in_candidate', score: 0 });
      const baselineFile = join(dir, 'baseline.jsonl');
      const candidateFile = join(dir, 'candidate.jsonl');
      writeFileSync(baselineFile, `${baseline.map((r) => JSON.stringify(r)).join('\n')}\n`);
      writeFileSync(candidateFile, `${candidate.map((r) => JSON.stringify(r)).join('\n')}\n`);

      const text = await compareCli([baselineFile, candidateFile]);
      expect(text.stderr).toBe('');
      expect(text.code).toBe(0);
      expect(text.stdout).toContain('paired cases: 10\n');
      expect(text.stdout).toContain('only in baseline (skipped): 1: fb_only_in_baseline\n');
      expect(text.stdout).toContain('only in candidate (skipped): 1: fb_only_in_candidate\n');
      expect(text.stdout).toContain('wins (candidate > baseline): 7\n');
      expect(text.stdout).toContain('losses (candidate < baseline): 2\n');
      expect(text.stdout).toContain('ties: 1\n');
      expect(text.stdout).toContain('mean difference (candidate - baseline): 0.3000\n');
      expect(text.stdout).toContain('sign test (exact, two-sided, n = 9 non-tied pairs): p = 0.1797\n');

      const json = await compareCli([baselineFile, candidateFile, '--json']);
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toEqual({
        pairs: 10,
        wins: 7,
        losses: 2,
        ties: 1,
        meanDifference: 0.3,
        signTestN: 9,
        pValue: 92 / 512,
        onlyInBaseline: ['fb_only_in_baseline'],
        onlyInCandidate: ['fb_only_in_candidate'],
      });

      const help = await compareCli(['--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('{"caseId": "fb_01J...", "score": 0.75}');

      writeFileSync(join(dir, 'broken.jsonl'), '{"caseId": "x", "score": "high"}\n');
      const broken = await compareCli([join(dir, 'broken.jsonl'), candidateFile]);
      expect(broken.code).toBe(1);
      expect(broken.stderr).toContain('broken.jsonl:1: "score" must be a finite number');
    },
    CLI_TIMEOUT_MS * 2,
  );
});
