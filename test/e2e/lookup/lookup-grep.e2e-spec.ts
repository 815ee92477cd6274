/**
 * R-LG-2 pattern search through the API: a 10,000-line log recorded as a tool result and searched
 * with `pattern` (RE2, in the worker pool), following each answer's marker to the end, over
 * GraphQL and over MCP.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { countTokens } from '../../../src/common/text/tokenizer';
import { memberOfNewSpace, RECORD, toolResult, type SpaceMember } from '../../support/fixtures';
import { ok } from '../../support/graphql';
import { parsePatternRow, type PatternRow } from '../../support/pattern-rows';
import { createTestApp, type TestApp } from '../../support/test-app';
import { listenForMcp } from '../mcp/support/mcp';

const RECALL = `query($m: String!, $p: String, $x: Int, $s: Int, $c: Int, $q: String, $t: Int) {
  recallToolResult(memId: $m, pattern: $p, contextLines: $x, lineStart: $s, lineCount: $c, query: $q, maxTokens: $t)
}`;
const MARKER =
  /\n\[… more: continue with recall_tool_result\(mem_id='mem_[a-z2-7]{16}', pattern="[^\n]*?"(?:, context_lines=\d+)?, line_start=(\d+)(?:, line_count=(\d+))?(?:, max_tokens=\d+)?\); (\d+) of (\d+) matching lines shown, up to line (\d+)\]$/;
const LEVELS = ['INFO', 'INFO', 'WARN', 'INFO', 'ERROR', 'INFO', 'DEBUG'];
const LINES = Array.from(
  { length: 10_000 },
  (_, i) => `${String(i + 1).padStart(5, '0')} ${LEVELS[i % 7]} worker-${i % 13} ${i % 101 === 0 ? 'timeout after 3000 ms' : 'ok'}`,
);

interface RecallArgs {
  p?: string;
  x?: number;
  s?: number;
  c?: number;
  q?: string;
  t?: number;
}

describe('Pattern search through the API (e2e)', () => {
  let t: TestApp;
  let alice: SpaceMember;
  let memId: string;
  let aMemId: string;

  const record = async (toolOutput: string): Promise<string> => {
    const input = [toolResult(alice.spaceId, crypto.randomUUID(), { toolName: 'read_log', toolOutput })];
    return (await ok<{ recordToolResults: { snapshots: { memId: string }[] } }>(t, RECORD, { input }, alice.token)).recordToolResults
      .snapshots[0].memId;
  };

  beforeAll(async () => {
    t = await createTestApp();
    alice = await memberOfNewSpace(t);
    // CRLF between lines; the last line has no newline after it.
    memId = await record(LINES.join('\r\n'));
    aMemId = await record(`${'a'.repeat(100_000)}\n${'a'.repeat(40)}b\n`);
  });
  afterAll(() => t.close());

  const recall = async (args: RecallArgs, id = memId, token = alice.token): Promise<string> =>
    (await ok<{ recallToolResult: string }>(t, RECALL, { m: id, ...args }, token)).recallToolResult;

  /** Follows the markers from line_start; every line shown, in order, and every answer. */
  async function walk(args: RecallArgs): Promise<{ rows: PatternRow[]; answers: string[] }> {
    const rows: PatternRow[] = [];
    const answers: string[] = [];
    for (let next: RecallArgs | null = args; next !== null;) {
      const answer = await recall(next);
      answers.push(answer);
      expect(countTokens(answer)).toBeLessThanOrEqual(args.t ?? 8000);
      const marker = MARKER.exec(answer);
      const [, ...body] = (marker === null ? answer : answer.slice(0, marker.index)).split('\n');
      rows.push(...body.filter((row) => row !== '--').map(parsePatternRow));
      next = marker === null ? null : { ...args, s: Number(marker[1]), c: marker[2] === undefined ? undefined : Number(marker[2]) };
    }
    return { rows, answers };
  }

  it('R-LG-2 walking the markers gives exactly the lines a filter selects, each once, numbered, in bounded answers', async () => {
    const expected = LINES.flatMap((line, i) => (/worker-(1[0-2]|[0-3]) /.test(line) ? [i + 1] : []));
    const { rows, answers } = await walk({ p: 'worker-(1[0-2]|[0-3]) ' });
    expect(answers.length).toBeGreaterThan(2);
    expect(answers[0].startsWith(`[${expected.length} matching lines of 10000]\n`)).toBe(true);
    expect(rows.every((row) => row.match)).toBe(true);
    expect(rows.map((row) => row.number)).toEqual(expected);
    for (const row of rows) expect(row.text).toBe(LINES[row.number - 1]);
  });

  it('R-LG-2 context lines are numbered with a dash around each match, groups apart separated by --', async () => {
    const answer = await recall({ p: 'timeout after \\d+ ms', x: 1, s: 1, c: 300 });
    expect(answer).toBe(
      [
        '[3 matching lines in lines 1–300 of 10000]',
        `     1:\t${LINES[0]}`,
        `     2-\t${LINES[1]}`,
        '--',
        `   101-\t${LINES[100]}`,
        `   102:\t${LINES[101]}`,
        `   103-\t${LINES[102]}`,
        '--',
        `   202-\t${LINES[201]}`,
        `   203:\t${LINES[202]}`,
        `   204-\t${LINES[203]}`,
      ].join('\n'),
    );
    // Case-sensitive unless (?i); a walk with context and a small bound still shows each match once.
    expect(await recall({ p: 'TIMEOUT', s: 9900 })).toBe('[0 matching lines in lines 9900–10000 of 10000]');
    const expected = LINES.flatMap((line, i) => (line.includes(' ERROR ') ? [i + 1] : []));
    const { rows } = await walk({ p: '(?i) error ', x: 2, t: 2000 });
    expect(rows.filter((row) => row.match).map((row) => row.number)).toEqual(expected);
    for (const row of rows) expect(row.text).toBe(LINES[row.number - 1]);
  });

  it('R-LG-2 a pathological pattern over a long line of a’s answers at once, not with a time-out', async () => {
    const answer = await recall({ p: '(a|a)*b' }, aMemId);
    expect(answer).toBe(`[1 matching line of 2]\n     2:\t${'a'.repeat(40)}b`);
    const nested = await recall({ p: '^(a+)+$' }, aMemId);
    expect(nested.startsWith(`[1 matching line of 2]\n     1:\taaaa`)).toBe(true);
    expect(nested).toMatch(/for the rest of line 1 \(it ends at char 100000\); 1 of 1 matching lines shown in part\]$/);
    expect(nested).not.toContain('took too long');
  });

  it('R-LG-2 a bad pattern, a bad combination and another user’s mem id are bracketed answers', async () => {
    expect(await recall({ p: '(worker)-\\1' })).toBe(
      '[tool_memory bad pattern: "(worker)-\\\\1": invalid escape sequence: `\\1` (RE2 has no backreferences); ' +
        'write RE2 syntax such as ERROR|WARN, ^\\d{4}-\\d\\d-\\d\\d, timeout after \\d+ ms or (?i)connection reset (no backreferences or lookaround)]',
    );
    expect(await recall({ p: 'ERROR(?= worker)' })).toMatch(
      /^\[tool_memory bad pattern: "ERROR\(\?= worker\)": .*\(RE2 has no lookahead or lookbehind\); write RE2 syntax/,
    );
    expect(await recall({ p: 'x'.repeat(1001) })).toMatch(/^\[tool_memory bad pattern: "x{79}…": longer than 1000 characters; /);
    expect(await recall({ p: 'ERROR', q: 'ERROR' })).toBe(
      '[tool_memory bad arguments: pattern searches lines (from line_start, for line_count lines); give it without query, json_path or offset]',
    );
    expect(await recall({ x: 2 })).toMatch(/^\[tool_memory bad arguments: context_lines goes with pattern/);
    expect(await recall({ p: 'ERROR', x: 51 })).toBe('[tool_memory bad context_lines: must be an integer from 0 to 50, got 51]');
    expect(await recall({ p: 'ERROR', s: 10_001 })).toBe('[tool_memory bad range: line_start 10001 is past the end (10000 lines)]');
    const bob = await memberOfNewSpace(t);
    expect(await recall({ p: 'ERROR' }, memId, bob.token)).toBe(`[tool_memory not found: ${memId}]`);
  });

  it('R-LG-2 R-TN-10 one request starts at most 8 searches in the worker pool; the rest answer with the limit', async () => {
    const fields = Array.from({ length: 10 }, (_, index) => `r${index}: recallToolResult(memId: $m, pattern: $p, lineStart: ${index + 1})`);
    const answers = Object.values(
      await ok<Record<string, string>>(
        t,
        `query($m: String!, $p: String) { ${fields.join(' ')} }`,
        { m: memId, p: 'timeout' },
        alice.token,
      ),
    );
    expect(answers.filter((answer) => /^\[\d+ matching lines (?:in lines \d+–10000 )?of 10000\]\n/.test(answer))).toHaveLength(8);
    expect(answers.filter((answer) => answer.startsWith('[tool_memory pattern not searched: one request may start 8 '))).toHaveLength(2);
  });

  it('R-LG-2 R-MCP-1 recall_tool_result over MCP takes pattern and context_lines', async () => {
    const client = new Client({ name: 'grep-e2e', version: '1.0.0' });
    const url = await listenForMcp(t);
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${alice.token}` } } }));
    try {
      const result = (await client.callTool({
        name: 'recall_tool_result',
        arguments: { mem_id: memId, pattern: 'timeout', context_lines: 1, line_start: 9990 },
      })) as CallToolResult;
      expect(result.isError).toBeUndefined();
      expect(result.content).toEqual([
        { type: 'text', text: `[1 matching line in lines 9990–10000 of 10000]\n  9999-\t${LINES[9998]}\n 10000:\t${LINES[9999]}` },
      ]);
      expect(result.structuredContent).toEqual({ mem_id: memId, text: (result.content[0] as { text: string }).text });
      const bad = (await client.callTool({ name: 'recall_tool_result', arguments: { mem_id: memId, pattern: '[' } })) as CallToolResult;
      expect((bad.content[0] as { text: string }).text).toMatch(
        /^\[tool_memory bad pattern: "\[": missing closing \]: `\[`; write RE2 syntax/,
      );
    } finally {
      await client.close();
    }
  });
});
