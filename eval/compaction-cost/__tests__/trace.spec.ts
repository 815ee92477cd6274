import type { AnthropicMessage } from '../../../test/fixtures/agent-trace.fixture';
import { MessageFormat, isProblem } from '../../../src/compaction/history/history.types';
import { readHistory } from '../../../src/compaction/history/read-history';
import { ALL_FORMATS, anthropicTraceIn } from '../../../test/fixtures/history-formats.fixture';
import { replay } from '../replay';
import { RequestMeter } from '../prompt-cache';
import { STRATEGIES } from '../strategies';
import { buildCostTrace, COST_TRACE_SEED, type TraceStep } from '../trace';

type ToolStep = Extract<TraceStep, { kind: 'tool' }>;
const steps = buildCostTrace();
const tools = steps.filter((step): step is ToolStep => step.kind === 'tool');
const none = STRATEGIES.find((s) => s.key === 'none')!;
const unused = {
  compact: () => Promise.reject(new Error('no compaction in this test')),
  recall: () => Promise.reject(new Error('no recall in this test')),
};

describe('the cost trace (R-LG-3 cost eval)', () => {
  it('R-LG-3 is the same for a seed on every call, and another seed gives another trace', () => {
    expect(buildCostTrace()).toStrictEqual(steps);
    expect(buildCostTrace(COST_TRACE_SEED + 1)).not.toStrictEqual(steps);
  });

  it('R-LG-3 a coding and research agent: at least 100 model calls, the tools, small and 2–40 KB results, errors, ≈40 KB write_file inputs', () => {
    const modelCalls = steps.filter((step) => step.kind === 'tool' || step.kind === 'say').length;
    expect(modelCalls).toBeGreaterThanOrEqual(100);
    expect(new Set(tools.map((t) => t.name))).toEqual(
      new Set(['read_file', 'grep', 'shell', 'fetch_url', 'search', 'edit_file', 'write_file']),
    );
    const sizes = tools.filter((t) => !t.isError).map((t) => t.result.length);
    expect(sizes.filter((size) => size < 2000).length).toBeGreaterThanOrEqual(20);
    expect(sizes.filter((size) => size >= 2000 && size <= 45_000).length).toBeGreaterThanOrEqual(40);
    expect(tools.filter((t) => t.isError).length).toBeGreaterThanOrEqual(3);
    const writes = tools.filter((t) => t.name === 'write_file').map((t) => JSON.stringify(t.input).length);
    expect(writes.filter((chars) => chars >= 38_000).length).toBeGreaterThanOrEqual(2);
    expect(steps.filter((step) => step.kind === 'user').length).toBeGreaterThanOrEqual(6);
    expect(new Set([...tools.map((t) => t.id), ...steps.flatMap((s) => (s.kind === 'recall' ? [s.id] : []))]).size).toBe(
      tools.length + steps.filter((s) => s.kind === 'recall').length,
    );
  });

  it('R-LG-3 re-reads: files read again, and recall steps that need an earlier large result, one of them by query', () => {
    const paths = tools.filter((t) => t.name === 'read_file').map((t) => t.input.path);
    expect(new Set(paths).size).toBeLessThan(paths.length);
    const recalls = steps.flatMap((step, index) => (step.kind === 'recall' ? [{ step, index }] : []));
    expect(recalls.length).toBeGreaterThanOrEqual(4);
    expect(recalls.some(({ step }) => step.query !== null)).toBe(true);
    for (const { step, index } of recalls) {
      const target = steps.findIndex((s) => s.kind === 'tool' && s.id === step.target);
      expect(target).toBeGreaterThanOrEqual(0);
      expect(index - target).toBeGreaterThanOrEqual(10);
      const result = (steps[target] as ToolStep).result;
      expect(result.length).toBeGreaterThan(2000);
      if (step.query !== null) expect(result).toContain(step.query);
    }
  });

  it.each(ALL_FORMATS)(
    'R-LG-3 reads in %s with every result in place, and without compaction each request extends the one before',
    async (format) => {
      const outcome = await replay(steps, format, none, unused, new RequestMeter(1));
      expect(outcome.recallCalls).toBe(0);
      expect(outcome.requests.length).toBe(steps.filter((s) => s.kind === 'tool' || s.kind === 'say').length);
      expect(outcome.requests.every((r) => !r.cacheBreak)).toBe(true);
      outcome.requests.slice(1).forEach((request, index) => {
        const before = outcome.requests[index];
        expect(request.sharedTokens).toBeLessThanOrEqual(before.inputTokens);
        expect(request.sharedTokens).toBeGreaterThan(before.inputTokens - 40);
      });
      const history = readHistory(anthropicTraceIn(format, transcript()), format);
      if (isProblem(history)) throw new Error(history.error);
      expect(history.reading.results.length).toBe(tools.length);
      expect(history.reading.results.filter((r) => r.isError).length).toBe(
        format === MessageFormat.OPENAI_CHAT || format === MessageFormat.OPENAI_RESPONSES ? 0 : tools.filter((t) => t.isError).length,
      );
    },
  );
});

/** The trace as the model sees it without compaction, in Anthropic Messages. */
function transcript(): AnthropicMessage[] {
  return steps.flatMap((step): AnthropicMessage[] => {
    switch (step.kind) {
      case 'user':
        return [{ role: 'user', content: step.text }];
      case 'say':
        return [{ role: 'assistant', content: step.text }];
      case 'recall':
        return [];
      case 'tool':
        return [
          { role: 'assistant', content: [{ type: 'tool_use', id: step.id, name: step.name, input: step.input }] },
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: step.id, content: step.result, ...(step.isError ? { is_error: true } : {}) }],
          },
        ];
    }
  });
}
