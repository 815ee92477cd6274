/** What the e2e tests of the handle pool (R-TN-10) read from `/metrics`, and the rule bomb of issue 53 they send. */
import request from 'supertest';
import type { GraphqlTarget } from './graphql';

/** A team admin's rule bomb, inside the document limits: eight rules of seven maxDate parts on `field` of `rows`, then a count that never holds. */
export function ruleBomb(field: string): object {
  return {
    version: 1,
    rules: Array.from({ length: 8 }, () => ({
      parts: [
        ...Array.from({ length: 7 }, () => ({ kind: 'maxDate', path: 'rows', field, label: 'at' })),
        { kind: 'count', path: 'x', label: 'n' },
      ],
    })),
  };
}

/** The value of a counter or gauge sample in `/metrics`, 0 when absent. */
export async function metricValue(t: GraphqlTarget, sample: string): Promise<number> {
  const text = (await request(t.app.getHttpServer()).get('/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line === undefined ? 0 : Number(line.slice(sample.length + 1));
}

export const OVER_BUDGET_FALLBACKS = 'tool_results_summary_rule_fallbacks_total{reason="over_budget"}';

/**
 * Resolves once the handle pool has a busy thread, read from `/metrics` one request after the
 * other (no sleep): the event loop answered while a payload was read on a worker thread. Fails
 * when `pending` settles first, or after `maxReads` reads.
 */
export async function handlePoolBusyDuring(t: GraphqlTarget, pending: Promise<unknown>, maxReads = 2_000): Promise<void> {
  let settled = false;
  void pending.finally(() => (settled = true)).catch(() => undefined);
  for (let read = 0; read < maxReads && !settled; read++) {
    if ((await metricValue(t, 'worker_pool_busy_threads{pool="handle"}')) > 0) return;
  }
  throw new Error(
    settled ? 'the request was answered before a worker thread of the handle pool was seen busy' : 'the handle pool never got busy',
  );
}
