import fc from 'fast-check';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { countJsonArray } from '../../../src/common/text/json-array-tokens';
import { countTokens } from '../../../src/common/text/tokenizer';
import { commonCut, RequestMeter } from '../prompt-cache';

const message = (role: string, text: string) => ({ role, content: text });
const history = [
  message('user', 'Find out why the export job times out on large accounts.'),
  { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'src/export.ts' } }] },
  {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'toolu_1', content: 'export async function run(batchSize = 500) {\n  await flush();\n}' },
    ],
  },
];

function commonTokens(a: number[], b: number[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

describe('prompt-cache accounting (R-LG-3 cost eval)', () => {
  it("R-LG-3 a request's input tokens are the service's count of the message list's JSON", () => {
    const measured = new RequestMeter(1).measure(history);
    expect(measured.inputTokens).toBe(countJsonArray(history).tokens);
    expect(measured.inputTokens).toBe(countTokens(JSON.stringify(history)));
  });

  it('R-LG-3 a request that appends to the one before shares all of it but the closing bracket and the word before it: no cache break', () => {
    const meter = new RequestMeter(1);
    const first = meter.measure(history.slice(0, 2));
    const second = meter.measure(history);
    expect(first).toMatchObject({ sharedTokens: 0, cacheBreak: false });
    expect(second.cacheBreak).toBe(false);
    expect(second.sharedTokens).toBeLessThan(first.inputTokens);
    expect(second.sharedTokens).toBeGreaterThanOrEqual(first.inputTokens - 5);
  });

  it('R-LG-3 a change before the end is a cache break; the shared prefix is counted exactly up to the cut before it', () => {
    const meter = new RequestMeter(1);
    meter.measure(history);
    const changed = [
      history[0],
      history[1],
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '[stub]' }] },
    ];
    const measured = meter.measure(changed);
    expect(measured.cacheBreak).toBe(true);
    const before = JSON.stringify(history);
    const after = JSON.stringify(changed);
    expect(measured.sharedTokens).toBe(countTokens(before.slice(0, commonCut(before, after))));
    expect(measured.sharedTokens).toBeLessThanOrEqual(commonTokens(encode(before), encode(after)));
  });

  it('R-LG-3 the shared prefix is never more than the tokens both requests begin with, and at most a word short of it', () => {
    const text = fc.stringMatching(/^[a-z ,.:"0-9]{0,80}$/);
    fc.assert(
      fc.property(text, text, text, (common, tailA, tailB) => {
        const a = [message('user', common + tailA)];
        const b = [message('user', common + tailB)];
        const meter = new RequestMeter(1);
        meter.measure(a);
        const shared = meter.measure(b).sharedTokens;
        const exact = commonTokens(encode(JSON.stringify(a)), encode(JSON.stringify(b)));
        expect(shared).toBeLessThanOrEqual(exact);
        expect(shared).toBeGreaterThanOrEqual(exact - 12);
      }),
      { numRuns: 300 },
    );
  });

  it('R-LG-3 cuts after a letter before a character the tokenizer always cuts before, not inside a word or a contraction', () => {
    expect(commonCut('hello world', 'hello there')).toBe(5);
    expect(commonCut('hello world', 'hello worlds')).toBe(5);
    expect(commonCut("it's done", "it'll do")).toBe(0);
    expect(commonCut('abc def', 'abc def')).toBe(7);
    expect(commonCut('12 34', '12 35')).toBe(0);
  });

  it("R-LG-3 mem ids (random per database) are renamed in order of first appearance, so two runs' counts are equal", () => {
    const withIds = (first: string, second: string) => [
      message('user', `re-expand: recall_tool_result(mem_id='${first}')`),
      message('assistant', `and ${second}, then ${first} again`),
    ];
    const one = new RequestMeter(7).measure(withIds('mem_aaaaaaaaaaaaaaaa', 'mem_bbbbbbbbbbbbbbbb'));
    const two = new RequestMeter(7).measure(withIds('mem_zzzzzzzzzzzzzzz2', 'mem_qqqqqqqqqqqqqqqq'));
    expect(two).toEqual(one);
    const meter = new RequestMeter(7);
    expect(meter.canonical('mem_aaaaaaaaaaaaaaaa mem_bbbbbbbbbbbbbbbb mem_aaaaaaaaaaaaaaaa')).toMatch(
      /^(mem_[a-z2-7]{16}) (?!\1)mem_[a-z2-7]{16} \1$/,
    );
  });
});
