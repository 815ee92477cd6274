import { checkCompactMessagesInput } from '../../../src/compaction/compact-messages.checks';
import { MessageFormat } from '../../../src/compaction/history/history.types';
import { BASELINES, compactionInput, PRESSURE_PAIRS, REFERENCE_FORMAT, STRATEGIES } from '../strategies';

const byKey = (key: string) => STRATEGIES.find((s) => s.key === key);

describe('cost eval strategies (R-LG-3)', () => {
  it('R-LG-3 none, every call with the defaults, and keys that name one strategy each', () => {
    expect(new Set(STRATEGIES.map((s) => s.key)).size).toBe(STRATEGIES.length);
    expect(byKey(BASELINES.none)).toMatchObject({ client: 'full', compaction: null, inEveryFormat: true });
    expect(byKey(BASELINES.everyCall)).toMatchObject({ client: 'full', compaction: {}, inEveryFormat: true });
    expect(REFERENCE_FORMAT).toBe(MessageFormat.ANTHROPIC);
  });

  it('R-LG-3 trigger 60k/80k/100k with target 20k/40k, each with and without clearing write_file inputs, for a client that keeps the view', () => {
    for (const trigger of [60_000, 80_000, 100_000]) {
      for (const target of [20_000, 40_000]) {
        expect(PRESSURE_PAIRS).toContainEqual([trigger, target]);
        for (const clearToolInputs of [undefined, ['write_file']]) {
          const found = STRATEGIES.find(
            (s) =>
              s.client === 'view' &&
              s.compaction?.triggerTokens === trigger &&
              s.compaction.targetTokens === target &&
              s.compaction.clearToolInputs?.join() === clearToolInputs?.join(),
          );
          expect(found).toBeDefined();
        }
      }
    }
  });

  it('R-LG-3 Anthropic-like clearing: trigger 100k, the last 3, at least 10k cleared, every tool input, no target, on the full history', () => {
    expect(byKey('anthropic-like')).toMatchObject({
      client: 'full',
      compaction: { triggerTokens: 100_000, keepLastN: 3, clearAtLeastTokens: 10_000, clearToolInputs: ['*'] },
    });
    expect(byKey('anthropic-like')?.compaction?.targetTokens).toBeUndefined();
  });

  it("R-LG-3 every strategy's settings pass the service's own check of compactMessages input", () => {
    const base = { spaceId: '5b7c1f0e-2a3d-4e5f-8a9b-0c1d2e3f4a5b', conversationId: '5b7c1f0e-2a3d-4e5f-8a9b-0c1d2e3f4a5c', messages: [] };
    for (const strategy of STRATEGIES) {
      if (strategy.compaction === null) continue;
      const input = compactionInput(strategy.compaction);
      expect(Object.values(input)).not.toContain(undefined);
      expect(() => checkCompactMessagesInput({ ...base, ...input })).not.toThrow();
    }
  });
});
