/**
 * R-LG-2: the RFC 9535 compliance suite through the API. Each case's document is recorded as a
 * tool output and its selector asked through recallToolResult(jsonPath); a valid selector must
 * give the suite's nodes (in one of its allowed orders), an invalid one the bad json_path answer.
 * Cases that do not pass are listed by name with the reason, so a change in either direction shows.
 */
import { memberOfNewSpace, RECORD, toolResult, type SpaceMember } from '../../support/fixtures';
import { ok } from '../../support/graphql';
import { ctsFailure, loadCts, sectionOf } from './support/jsonpath-cts';
import { createTestApp, type TestApp } from '../../support/test-app';

const RECALL = `query($m: String!, $p: String) { recallToolResult(memId: $m, jsonPath: $p) }`;
const BATCH = 100;
/** The floor; the suite's own figure is in docs/lookup-and-compaction.md. */
const MIN_PASS_RATE = 0.9;
/** Cases known not to pass, with the reason: none today. A new failure or a fixed one fails the test. */
const KNOWN_FAILURES: Record<string, string> = {};

describe('JSONPath compliance through the API (e2e)', () => {
  let t: TestApp;
  let alice: SpaceMember;

  beforeAll(async () => {
    t = await createTestApp();
    alice = await memberOfNewSpace(t);
  });
  afterAll(() => t?.close());

  it('R-LG-2 passes the RFC 9535 compliance suite (703 cases): every valid selector gives its nodes, every invalid one a bad json_path answer', async () => {
    const cases = loadCts();
    expect(cases).toHaveLength(703);
    const documents = cases.filter((test) => test.document !== undefined);
    const memIds = new Map<unknown, string>();
    for (let from = 0; from < documents.length; from += BATCH) {
      // A conversation per batch: a conversation keeps a bounded number of snapshots.
      const conversationId = crypto.randomUUID();
      const input = documents
        .slice(from, from + BATCH)
        .map((test) => toolResult(alice.spaceId, conversationId, { toolName: 'cts', toolOutput: test.document }));
      const recorded = await ok<{ recordToolResults: { snapshots: { memId: string }[] } }>(t, RECORD, { input }, alice.token);
      recorded.recordToolResults.snapshots.forEach((snapshot, index) => memIds.set(documents[from + index], snapshot.memId));
    }
    const anyMemId = memIds.values().next().value as string;

    const failures: Record<string, string> = {};
    const bySection = new Map<string, { passed: number; total: number }>();
    for (const test of cases) {
      const memId = memIds.get(test) ?? anyMemId;
      const answer = (await ok<{ recallToolResult: string }>(t, RECALL, { m: memId, p: test.selector }, alice.token)).recallToolResult;
      const failure = ctsFailure(test, answer);
      if (failure !== null) failures[test.name] = failure;
      const section = bySection.get(sectionOf(test)) ?? { passed: 0, total: 0 };
      bySection.set(sectionOf(test), { passed: section.passed + (failure === null ? 1 : 0), total: section.total + 1 });
    }

    const passed = cases.length - Object.keys(failures).length;
    const report = [...bySection].map(([section, { passed: p, total }]) => `${section}: ${p}/${total}`).join('\n');
    process.stdout.write(`JSONPath compliance: ${passed}/${cases.length} passed\n${report}\n`);
    expect(passed / cases.length).toBeGreaterThanOrEqual(MIN_PASS_RATE);
    expect(Object.keys(failures).sort()).toEqual(Object.keys(KNOWN_FAILURES).sort());
  });
});
