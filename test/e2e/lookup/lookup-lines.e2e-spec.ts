/**
 * R-LG-2 line ranges through the API: a 10,000-line log (CRLF breaks, a last line without a
 * newline) recorded as a tool result and read by lineStart/lineCount, following each answer's
 * marker to the end.
 */
import { countTokens } from '../../../src/common/text/tokenizer';
import { memberOfNewSpace, RECORD, toolResult, type SpaceMember } from '../../support/fixtures';
import { ok } from '../../support/graphql';
import { createTestApp, type TestApp } from '../../support/test-app';

const RECALL = `query($m: String!, $s: Int, $c: Int) { recallToolResult(memId: $m, lineStart: $s, lineCount: $c) }`;
const MARKER =
  /\n\[… more: continue with recall_tool_result\(mem_id='mem_[a-z2-7]{16}', line_start=(\d+)(?:, line_count=(\d+))?\); lines (\d+)–(\d+) of (\d+) shown\]$/;
const LINES = Array.from({ length: 10_000 }, (_, i) => `${String(i + 1).padStart(5, '0')} worker-${i % 7} ${'ok '.repeat(i % 11)}done`);

describe('Line ranges through the API (e2e)', () => {
  let t: TestApp;
  let alice: SpaceMember;
  let memId: string;

  beforeAll(async () => {
    t = await createTestApp();
    alice = await memberOfNewSpace(t);
    // CRLF between lines; the last line has no newline after it.
    const log = LINES.join('\r\n');
    const input = [toolResult(alice.spaceId, crypto.randomUUID(), { toolName: 'read_log', toolOutput: log })];
    memId = (await ok<{ recordToolResults: { snapshots: { memId: string }[] } }>(t, RECORD, { input }, alice.token)).recordToolResults
      .snapshots[0].memId;
  });
  afterAll(() => t.close());

  const recall = async (lineStart: number, lineCount?: number): Promise<string> =>
    (await ok<{ recallToolResult: string }>(t, RECALL, { m: memId, s: lineStart, c: lineCount }, alice.token)).recallToolResult;

  /** Follows the markers from `lineStart`; every line shown, in order, and how many calls it took. */
  async function walk(lineStart: number, lineCount?: number): Promise<{ lines: string[]; calls: number }> {
    const lines: string[] = [];
    let next: { start: number; count?: number } | null = { start: lineStart, count: lineCount };
    let calls = 0;
    while (next !== null) {
      const answer = await recall(next.start, next.count);
      calls += 1;
      expect(countTokens(answer)).toBeLessThanOrEqual(8000);
      const marker = MARKER.exec(answer);
      const body = marker === null ? answer : answer.slice(0, marker.index);
      for (const row of body.split('\n')) {
        const [number, text] = row.split('\t');
        expect(Number(number)).toBe(lineStart + lines.length);
        lines.push(text);
      }
      next = marker === null ? null : { start: Number(marker[1]), count: marker[2] === undefined ? undefined : Number(marker[2]) };
    }
    return { lines, calls };
  }

  it('R-LG-2 walking from line 1 shows every line of a 10,000-line CRLF log exactly once, numbered, the last one without a newline', async () => {
    const { lines, calls } = await walk(1);
    expect(lines).toEqual(LINES);
    expect(calls).toBeGreaterThan(1);
  });

  it('R-LG-2 a line count stops the walk at its last line; a start past the end is a bracketed answer', async () => {
    const { lines } = await walk(4000, 2500);
    expect(lines).toEqual(LINES.slice(3999, 6499));
    expect(await recall(9999)).toBe(`  9999\t${LINES[9998]}\n 10000\t${LINES[9999]}`);
    expect(await recall(10_001)).toBe('[tool_memory bad range: line_start 10001 is past the end (10000 lines)]');
  });
});
