import { EVAL_CASES, EVAL_IDS, EvalId, findCase } from '../cases';
import { asOfDatePattern, claimsLive, Grader, GRADERS, gradeAsOfDate, mentionsDate } from '../graders';
import { RecordedAdapter } from '../model-adapter';
import { answerRecallCall } from '../recall-stand-in';
import { RecordedTranscript, ToolUseBlock } from '../transcript';
import { verdictsAgree } from '../verdicts';

const recorded = new RecordedAdapter().all();

function recordedFor(evalId: EvalId): RecordedTranscript[] {
  return recorded.filter((t) => findCase(t.caseId)?.eval === evalId);
}

const SPEC_BLOCK = [
  'Previously fetched (this conversation, snapshots — not live data):',
  '- 2026-05-12 query_site_data(target="recent_members"): 8 members, last registered 2026-05-10',
  '- 2026-05-12 query_kpi_trend(metric="active_members", granularity="week"): 7-week trend, +12%',
  '- 2026-05-08 query_site_data(target="memberships"): 5 plans, Starter Pack 23 active',
  '',
  'IMPORTANT: when referencing a row above, always prefix with "as of <date>".',
  'If the user is asking about CURRENT state, call the tool fresh — do not',
  'present these snapshots as live data.',
].join('\n');

describe('release eval cases', () => {
  it('R-EV-1 every case carries the block the production summarizer and renderer produce, within budget', () => {
    for (const testCase of EVAL_CASES) {
      expect(testCase.block.text).toBe(SPEC_BLOCK);
      expect(testCase.block.droppedCount).toBe(0);
      expect(testCase.block.tokens).toBeLessThanOrEqual(300);
      expect(testCase.systemPrompt.endsWith(`\n\n${SPEC_BLOCK}`)).toBe(true);
      expect(testCase.tools.map((tool) => tool.name)).toEqual(['recall_tool_result', 'recall_prior_tool_result', testCase.freshTool.name]);
    }
  });

  it("R-EV-1 each snapshot's facts are read off its own block line (the graders look for what the model was shown)", () => {
    const lines = EVAL_CASES[0].block.lines;
    for (const snapshot of EVAL_CASES[0].snapshots) {
      const line = lines.find((l) => l.snapshotId === snapshot.id);
      expect(line).toBeDefined();
      expect(snapshot.facts.some((fact) => fact.test(line!.text))).toBe(true);
    }
  });

  it('R-EV-1 covers the three evals, and eval 2 pairs a recall question with a current-state one in one conversation', () => {
    expect(new Set(EVAL_CASES.map((c) => c.eval))).toEqual(new Set(EVAL_IDS));
    const routes = EVAL_CASES.flatMap((c) => (c.eval === 'routing' ? [c] : []));
    expect(routes.map((c) => c.route).sort()).toEqual(['fresh', 'recall']);
    const fresh = routes.find((c) => c.route === 'fresh')!;
    const recall = routes.find((c) => c.route === 'recall')!;
    expect(fresh.history[0]).toEqual({ role: 'user', content: recall.userMessage });
  });
});

describe('recorded transcripts', () => {
  it('R-EV-1 every recording names a known case, and every eval and case has passing and failing answers', () => {
    for (const transcript of recorded) expect(findCase(transcript.caseId)).toBeDefined();
    for (const testCase of EVAL_CASES) {
      const expected = new Set(recorded.filter((t) => t.caseId === testCase.id).map((t) => t.expected));
      expect({ caseId: testCase.id, expected: [...expected].sort() }).toEqual({ caseId: testCase.id, expected: ['fail', 'pass'] });
    }
  });

  it('R-EV-1 recall results inside recordings are exactly what the harness feeds a live model', () => {
    for (const transcript of recorded) {
      const testCase = findCase(transcript.caseId)!;
      const calls = new Map<string, ToolUseBlock>();
      for (const message of transcript.messages) {
        for (const block of message.content) {
          if (block.type === 'tool_use') calls.set(block.id, block);
          if (block.type === 'tool_result') expect(block.content).toBe(answerRecallCall(testCase, calls.get(block.tool_use_id)!));
        }
      }
    }
  });
});

describe.each(EVAL_IDS)('the %s grader', (evalId) => {
  const cases = recordedFor(evalId).map((t) => [`${t.caseId} [${t.label}]`, t.expected, t] as const);

  it.each(cases)('R-EV-1 grades %s as %s', (_name, expected, transcript) => {
    const result = GRADERS[evalId](findCase(transcript.caseId)!, transcript);
    expect({ verdict: result.pass ? 'pass' : 'fail', reason: result.reason }).toEqual({
      verdict: expected,
      reason: expect.any(String),
    });
  });

  it('R-EV-1 agrees with every recorded verdict, and an always-pass or always-fail grader does not', () => {
    const transcripts = recordedFor(evalId);
    expect(verdictsAgree(GRADERS[evalId], transcripts)).toBe(true);
    const alwaysPass: Grader = () => ({ pass: true });
    const alwaysFail: Grader = () => ({ pass: false });
    expect(verdictsAgree(alwaysPass, transcripts)).toBe(false);
    expect(verdictsAgree(alwaysFail, transcripts)).toBe(false);
  });
});

describe('grader building blocks', () => {
  const may8 = new Date('2026-05-08T16:40:00Z');

  it.each([
    '2026-05-08',
    'on 2026/05/08',
    'May 8',
    'May 8, 2026',
    'May 8th',
    '8 May 2026',
    'the 8th of May',
    'Fri, May 8.',
    '5/8/2026',
    '05/08',
  ])('R-EV-1 reads "%s" as a mention of 2026-05-08', (text) => {
    expect(mentionsDate(text, may8)).toBe(true);
  });

  it.each(['2026-05-18', 'May 18', 'May 8, 2025', '2025-05-08', '5/18', 'May 80 members', '2026-05-12'])(
    'R-EV-1 does not read "%s" as a mention of 2026-05-08',
    (text) => {
      expect(mentionsDate(text, may8)).toBe(false);
    },
  );

  it('R-EV-1 "as of" must lead into the date', () => {
    expect(asOfDatePattern(may8).test('As of **May 8, 2026**, 23 members')).toBe(true);
    expect(asOfDatePattern(may8).test('(as of the 2026-05-08 snapshot)')).toBe(true);
    expect(asOfDatePattern(may8).test('23 members on 2026-05-08')).toBe(false);
    expect(asOfDatePattern(may8).test('as of today, 2026-05-08 data')).toBe(false);
  });

  it('R-EV-1 live wording counts only where it is not hedged', () => {
    expect(claimsLive('You currently have 23 members.')).toBe(true);
    expect(claimsLive('As of today, Starter Pack has 23 active members.')).toBe(true);
    expect(claimsLive('23 as of 2026-05-08, so you currently have 23.')).toBe(true);
    expect(claimsLive('23 as of 2026-05-08; it may be different today.')).toBe(false);
    expect(claimsLive('23 as of 2026-05-08 — I can fetch what it is right now.')).toBe(false);
    expect(claimsLive('23 as of 2026-05-08, not live data.')).toBe(false);
  });

  it('R-EV-1 a grader refuses a case of another eval', () => {
    const citationCase = EVAL_CASES.find((c) => c.eval === 'citation')!;
    expect(() => gradeAsOfDate(citationCase, recorded[0])).toThrow(/as-of-date grader was given a citation case/);
  });
});
