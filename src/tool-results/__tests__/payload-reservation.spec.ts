import { AppError } from '../../common/errors/app-error';
import type { RequestBudget } from '../../observability/request-context';
import { payloadCharsOf, reservePayloadChars } from '../payload-reservation';
import type { ToolResultSnapshot } from '../tool-result-snapshot';

const budget = (payloadChars = 0): RequestBudget => ({ payloadChars, libraryEvaluations: 0 });

describe('payload reservation', () => {
  it('R-OP-5 reserves while the request stays within the limit, up to exactly the limit', () => {
    const b = budget();
    reservePayloadChars(b, 600, 1000);
    reservePayloadChars(b, 400, 1000);
    expect(b.payloadChars).toBe(1000);
  });

  it('R-OP-5 over the limit: RESPONSE_TOO_LARGE naming RESPONSE_MAX_PAYLOAD_CHARS, and nothing is reserved', () => {
    const b = budget(600);
    let thrown: unknown;
    try {
      reservePayloadChars(b, 401, 1000);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect(thrown).toMatchObject({
      code: 'RESPONSE_TOO_LARGE',
      details: { limit: 'RESPONSE_MAX_PAYLOAD_CHARS', maxChars: 1000, requestedChars: 1001 },
    });
    expect((thrown as Error).message).toMatch(/fewer items \(first\/limit\), use fewer aliases, or leave out toolOutput\/toolInput/);
    // A refused read leaves the room to a smaller one of the same request.
    expect(b.payloadChars).toBe(600);
    reservePayloadChars(b, 400, 1000);
    expect(b.payloadChars).toBe(1000);
  });

  it('R-OP-5 reads running side by side in one request share the budget: the second one over it is refused', () => {
    const b = budget();
    const outcomes = [700, 700].map((chars) => {
      try {
        reservePayloadChars(b, chars, 1000);
        return 'served';
      } catch {
        return 'refused';
      }
    });
    expect(outcomes).toEqual(['served', 'refused']);
  });

  it('R-OP-5 outside a request there is no budget, and an empty read reserves nothing', () => {
    expect(() => reservePayloadChars(undefined, 10 ** 9, 1000)).not.toThrow();
    const b = budget(1000);
    expect(() => reservePayloadChars(b, 0, 1000)).not.toThrow();
  });

  it('R-OP-5 counts the output by its stored size and the input by its measured size or its JSON length', () => {
    const snapshots = [
      { sizeChars: 100, inputChars: 7 },
      { sizeChars: 50, toolInput: { a: 1 } },
    ] as ToolResultSnapshot[];
    expect(payloadCharsOf(snapshots, { output: true })).toBe(150);
    expect(payloadCharsOf(snapshots, { input: true })).toBe(7 + '{"a":1}'.length);
    expect(payloadCharsOf(snapshots, { input: true, output: true })).toBe(150 + 14);
    expect(payloadCharsOf(snapshots, {})).toBe(0);
  });
});
