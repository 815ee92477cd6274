import { AppError } from '../../common/errors/app-error';
import type { RequestBudget } from '../../observability/request-context';
import { payloadBytesAtLeast, payloadWireBytes, reservePayloadBytes } from '../payload-reservation';
import type { ToolResultSnapshot } from '../tool-result-snapshot';

const budget = (payloadBytes = 0): RequestBudget => ({ payloadBytes, libraryEvaluations: 0 });

describe('payload reservation', () => {
  it('R-OP-5 reserves while the request stays within the limit, up to exactly the limit', () => {
    const b = budget();
    reservePayloadBytes(b, 600, 1000);
    reservePayloadBytes(b, 400, 1000);
    expect(b.payloadBytes).toBe(1000);
  });

  it('R-OP-5 over the limit: RESPONSE_TOO_LARGE naming RESPONSE_MAX_PAYLOAD_BYTES, and nothing is reserved', () => {
    const b = budget(600);
    let thrown: unknown;
    try {
      reservePayloadBytes(b, 401, 1000);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect(thrown).toMatchObject({
      code: 'RESPONSE_TOO_LARGE',
      details: { limit: 'RESPONSE_MAX_PAYLOAD_BYTES', maxBytes: 1000, requestedBytes: 1001 },
    });
    expect((thrown as Error).message).toMatch(/fewer items \(first\/limit\), use fewer aliases, or leave out toolOutput\/toolInput/);
    // A refused read leaves the room to a smaller one of the same request.
    expect(b.payloadBytes).toBe(600);
    reservePayloadBytes(b, 400, 1000);
    expect(b.payloadBytes).toBe(1000);
  });

  it('R-OP-5 reads running side by side in one request share the budget: the second one over it is refused', () => {
    const b = budget();
    const outcomes = [700, 700].map((bytes) => {
      try {
        reservePayloadBytes(b, bytes, 1000);
        return 'served';
      } catch {
        return 'refused';
      }
    });
    expect(outcomes).toEqual(['served', 'refused']);
  });

  it('R-OP-5 outside a request there is no budget, and an empty read reserves nothing', () => {
    expect(() => reservePayloadBytes(undefined, 10 ** 9, 1000)).not.toThrow();
    const b = budget(1000);
    expect(() => reservePayloadBytes(b, 0, 1000)).not.toThrow();
  });

  it("R-OP-5 before the read: at least the output's stored size in characters and the input's measured size or JSON length", () => {
    const snapshots = [
      { sizeChars: 100, inputChars: 7 },
      { sizeChars: 50, toolInput: { a: 1 } },
    ] as ToolResultSnapshot[];
    expect(payloadBytesAtLeast(snapshots, { output: true })).toBe(150);
    expect(payloadBytesAtLeast(snapshots, { input: true })).toBe(7 + '{"a":1}'.length);
    expect(payloadBytesAtLeast(snapshots, { input: true, output: true })).toBe(150 + 14);
    expect(payloadBytesAtLeast(snapshots, {})).toBe(0);
  });

  it('R-TN-10 after the read: the exact bytes on the wire, JSON escapes and UTF-8 counted, never fewer than the characters', () => {
    const controls = '\u0001'.repeat(1000);
    const snapshots = [
      { sizeChars: controls.length, toolOutput: controls, toolInput: { q: 'é' } },
      { sizeChars: 9, toolOutput: { a: '😀' }, toolInput: null },
    ] as ToolResultSnapshot[];
    // Six bytes per control character, the quotes; then {"a":"😀"} is 8 ASCII bytes and 4 for the emoji.
    expect(payloadWireBytes(snapshots, { output: true })).toBe(6 * 1000 + 2 + 12);
    expect(payloadWireBytes(snapshots, { input: true })).toBe('{"q":"'.length + 2 + '"}'.length + 'null'.length);
    expect(payloadWireBytes(snapshots, { output: true })).toBeGreaterThanOrEqual(payloadBytesAtLeast(snapshots, { output: true }));
    expect(payloadWireBytes(snapshots, {})).toBe(0);
  });
});
