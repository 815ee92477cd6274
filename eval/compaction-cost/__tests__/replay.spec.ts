import { createHash } from 'node:crypto';
import { findCompactionCandidates } from '../../../src/compaction/compaction';
import { type ConcreteFormat, isProblem, MessageFormat } from '../../../src/compaction/history/history.types';
import { readHistory } from '../../../src/compaction/history/read-history';
import { renderStub } from '../../../src/tool-results/handle/stub';
import { PURE_DEFAULTS } from '../../../test/support/compact-pure';
import { RequestMeter } from '../prompt-cache';
import type { LedgerPort } from '../replay';
import { replay } from '../replay';
import { STRATEGIES, type Strategy } from '../strategies';
import { buildCostTrace } from '../trace';

const steps = buildCostTrace();
const strategy = (key: string) => STRATEGIES.find((s) => s.key === key) as Strategy;

/**
 * compactMessages' pure chain with the defaults (every eligible result replaced on every call)
 * and stubs as the service renders them, a mem id per call id: the client loop under test, not
 * the service (the eval itself runs the real one).
 */
class PureLedger implements LedgerPort {
  readonly inputs: object[][] = [];
  readonly outputs: object[][] = [];
  readonly recalled: string[] = [];

  compact(messages: object[], format: ConcreteFormat): Promise<object[]> {
    this.inputs.push(messages);
    const history = readHistory(messages, format);
    if (isProblem(history) || history.adapter === null) throw new Error('unreadable history');
    const candidates = findCompactionCandidates(history.reading, PURE_DEFAULTS, 'conversation');
    const out = history.adapter.writeStubs(
      messages,
      candidates.map((candidate) => ({ site: candidate.site, stub: stubFor(candidate.toolUseId, candidate.toolName) })),
    );
    this.outputs.push(out);
    return Promise.resolve(out);
  }

  recall(memId: string, query: string | null): Promise<string> {
    this.recalled.push(memId);
    return Promise.resolve(`answer for ${memId}${query === null ? '' : ` about ${query}`}`);
  }
}

function memIdOf(id: string): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  const bytes = createHash('sha256').update(id).digest();
  return `mem_${Array.from(bytes.subarray(0, 16), (byte) => alphabet[byte % 32]).join('')}`;
}

function stubFor(toolUseId: string, toolName: string): string {
  return renderStub({
    memId: memIdOf(toolUseId),
    toolName,
    toolCallId: toolUseId,
    sizeChars: 5000,
    sizeTokens: 1200,
    summaryOneliner: 'a result',
    schemaHint: null,
    headPreview: null,
  });
}

describe('the cost eval client loop (R-LG-3)', () => {
  it('R-LG-3 full history: each request is compactMessages of the whole history; a recall call follows only a stub, with its mem id', async () => {
    const ledger = new PureLedger();
    const outcome = await replay(steps, MessageFormat.ANTHROPIC, strategy('every-call'), ledger, new RequestMeter(1));
    const recallSteps = steps.filter((s) => s.kind === 'recall');
    expect(outcome.recallCalls).toBeGreaterThan(0);
    expect(outcome.recallCalls).toBeLessThanOrEqual(recallSteps.length);
    const targets = recallSteps.map((s) => (s.kind === 'recall' ? memIdOf(s.target) : ''));
    for (const memId of ledger.recalled) expect(targets).toContain(memId);
    expect(outcome.requests.length).toBe(steps.filter((s) => s.kind === 'tool' || s.kind === 'say').length + outcome.recallCalls);
    // Every call sends the whole history as the client holds it: no stub in what it sends.
    for (const input of ledger.inputs) expect(JSON.stringify(input)).not.toContain('[recall-ledger tool_memory');
    expect(outcome.requests.some((r) => r.cacheBreak)).toBe(true);
  });

  it('R-LG-3 keeping the view: each request is the last wire view with the new turns appended', async () => {
    const ledger = new PureLedger();
    const viewStrategy: Strategy = { ...strategy('view-60k-20k'), compaction: {} };
    await replay(steps, MessageFormat.OPENAI_CHAT, viewStrategy, ledger, new RequestMeter(1));
    ledger.inputs.slice(1).forEach((input, index) => {
      const previous = ledger.outputs[index];
      expect(input.slice(0, previous.length)).toEqual(previous);
      expect(input.length).toBeGreaterThan(previous.length);
    });
  });
});
