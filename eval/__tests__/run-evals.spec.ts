import { EVAL_CASES, EVAL_TITLES, EvalCase, findCase } from '../cases';
import { FetchLike, ModelAdapter, RecordedAdapter } from '../model-adapter';
import { main, runEvals } from '../run-evals';
import { RecordedTranscript } from '../transcript';

function capture(): { log: (line: string) => void; lines: string[] } {
  const lines: string[] = [];
  return { log: (line) => lines.push(line), lines };
}

const recorded = new RecordedAdapter().all();

describe('npm run eval', () => {
  it('R-EV-1 without a key grades the recorded transcripts, prints per-eval pass counts and verdict agreement, exits 0', async () => {
    const { log, lines } = capture();
    const code = await main({}, log);

    expect(code).toBe(0);
    expect(lines[0]).toMatch(/^Release evals \(R-EV-1\): recorded transcripts \(\d+ files in eval\/transcripts\)$/);
    for (const [evalId, title] of Object.entries(EVAL_TITLES)) {
      const ofEval = recorded.filter((t) => findCase(t.caseId)?.eval === evalId);
      const passing = ofEval.filter((t) => t.expected === 'pass').length;
      expect(passing).toBeLessThan(ofEval.length); // the set holds failing answers on purpose
      expect(lines).toContain(`${title}: ${passing}/${ofEval.length} passed`);
    }
    expect(lines).toContain(`expected-vs-actual verdicts agree: ${recorded.length}/${recorded.length}`);
    expect(lines[lines.length - 1]).toMatch(
      /^summary: \d+\/\d+ answers passed across 3 evals — graders agree with every recorded verdict$/,
    );
    expect(lines.some((line) => line.includes('MISMATCH'))).toBe(false);
  });

  it('R-EV-1 exits 1 when a recorded verdict is not reached', async () => {
    class FlippedAdapter extends RecordedAdapter {
      override async respondAll(testCase: EvalCase): Promise<RecordedTranscript[]> {
        const all = await super.respondAll(testCase);
        return all.map((t, i) => (i === 0 ? { ...t, expected: t.expected === 'pass' ? 'fail' : 'pass' } : t));
      }
    }
    const { log, lines } = capture();
    const report = await runEvals({ adapter: new FlippedAdapter(), log });
    expect(report.exitCode).toBe(1);
    expect(report.agreement).toEqual({ agreed: recorded.length - EVAL_CASES.length, checked: recorded.length });
    expect(lines.filter((line) => line.includes('MISMATCH'))).toHaveLength(EVAL_CASES.length);
    expect(lines[lines.length - 1]).toMatch(/GRADER DISAGREEMENT$/);
  });

  it('R-EV-1 with a key runs every case through the API once and gates on every case passing', async () => {
    // A fake model that answers every case well except citation ones, which it leaves uncited.
    const fetch: FetchLike = async (_url, init) => {
      const body = JSON.parse(init.body) as { messages: Array<{ role: string; content: unknown }> };
      const question = String(body.messages[body.messages.length - 1].content);
      const content = /right now/.test(question)
        ? [{ type: 'tool_use', id: 'toolu_1', name: 'query_site_data', input: { target: 'member_count' } }]
        : /Starter Pack/.test(question)
          ? [{ type: 'text', text: 'As of 2026-05-08, Starter Pack had 23 active members.' }]
          : /plans did you show/.test(question)
            ? [{ type: 'text', text: 'I showed you 5 plans; Starter Pack led.' }]
            : [{ type: 'text', text: 'Active members grew 12% over 7 weeks; 8 new members.' }];
      const stop = content[0].type === 'tool_use' ? 'tool_use' : 'end_turn';
      return { ok: true, status: 200, text: async () => JSON.stringify({ content, stop_reason: stop }) };
    };
    const { log, lines } = capture();
    const code = await main({ ANTHROPIC_API_KEY: 'k', EVAL_MODEL: 'claude-fake' }, log, fetch);

    expect(code).toBe(1);
    expect(lines[0]).toBe('Release evals (R-EV-1): Anthropic Messages API, model claude-fake');
    expect(lines).toEqual(
      expect.arrayContaining([
        'as-of-date adherence: 1/1 passed',
        'recall-vs-requery routing: 2/2 passed',
        'citation discipline: 0/2 passed',
      ]),
    );
    expect(lines.some((line) => line.startsWith('expected-vs-actual'))).toBe(false);
    expect(lines[lines.length - 1]).toBe('summary: 3/5 answers passed across 3 evals — RELEASE GATE FAILED');
  });

  it('R-EV-1 an adapter failure is reported per case and fails the run', async () => {
    const broken: ModelAdapter = {
      description: 'broken',
      respond: async () => {
        throw new Error('boom');
      },
    };
    const { log, lines } = capture();
    const report = await runEvals({ adapter: broken, cases: EVAL_CASES.slice(0, 1), log });
    expect(report.exitCode).toBe(1);
    expect(lines).toContain('  FAIL  as-of-date.starter-pack-active [error] — adapter error: boom');
    expect(lines[lines.length - 1]).toBe('summary: 0/1 answers passed across 1 evals; 1 case(s) errored — RELEASE GATE FAILED');
  });
});
