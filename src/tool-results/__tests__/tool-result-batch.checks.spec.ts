import { checkToolResultBatch, MAX_BATCH_ITEMS } from '../tool-result-batch.checks';

const limits = { maxOutputBytes: 1024, maxInputBytes: 256, retentionDays: 180 };
const now = new Date('2026-06-01T00:00:00Z');
const item = ({
  toolInput = {},
  toolOutput = 'ok',
  createdAt,
  toolUseId = 'toolu_1',
  toolName = 'lookup',
}: { toolInput?: unknown; toolOutput?: unknown; createdAt?: Date; toolUseId?: string; toolName?: string } = {}) => ({
  toolUseId,
  toolName,
  toolInputJson: JSON.stringify(toolInput),
  toolOutputJson: JSON.stringify(toolOutput),
  createdAt,
});

describe('checkToolResultBatch', () => {
  it('R-TR-1 accepts 1 to 100 items and refuses an empty or larger batch', () => {
    expect(() => checkToolResultBatch([item()], limits, now)).not.toThrow();
    expect(() =>
      checkToolResultBatch(
        Array.from({ length: MAX_BATCH_ITEMS }, () => item()),
        limits,
        now,
      ),
    ).not.toThrow();
    expect(() => checkToolResultBatch([], limits, now)).toThrow(expect.objectContaining({ code: 'BAD_USER_INPUT' }));
    expect(() =>
      checkToolResultBatch(
        Array.from({ length: 101 }, () => item()),
        limits,
        now,
      ),
    ).toThrow('1 to 100');
  });

  it('R-TR-5 measures outputs serialized, in bytes, and names the item and the limit', () => {
    const exactly = 'x'.repeat(1022); // plus two quotes = 1024 bytes
    expect(() => checkToolResultBatch([item({ toolOutput: exactly })], limits, now)).not.toThrow();
    expect(() => checkToolResultBatch([item(), item({ toolOutput: `${exactly}é` })], limits, now)).toThrow(
      expect.objectContaining({
        code: 'PAYLOAD_TOO_LARGE',
        details: { field: 'input.1.toolOutput' },
        message: expect.stringContaining('1024 bytes'),
      }),
    );
    expect(() => checkToolResultBatch([item({ toolInput: { q: 'y'.repeat(300) } })], limits, now)).toThrow(
      expect.objectContaining({ code: 'PAYLOAD_TOO_LARGE' }),
    );
  });

  it('R-TR-1 createdAt may not be in the future beyond the skew or older than the retention window', () => {
    const at = (ms: number) => item({ createdAt: new Date(now.getTime() + ms) });
    expect(() => checkToolResultBatch([at(60_000)], limits, now)).not.toThrow();
    expect(() => checkToolResultBatch([at(10 * 60_000)], limits, now)).toThrow('in the future');
    expect(() => checkToolResultBatch([at(-179 * 86_400_000)], limits, now)).not.toThrow();
    expect(() => checkToolResultBatch([at(-181 * 86_400_000)], limits, now)).toThrow('180-day retention window');
  });

  it('R-TR-5 a NUL character, which jsonb cannot store, is BAD_USER_INPUT naming the field', () => {
    expect(() => checkToolResultBatch([item({ toolOutput: { text: 'a\u0000b' } })], limits, now)).toThrow(
      expect.objectContaining({ code: 'BAD_USER_INPUT', details: { field: 'input.0.toolOutput' } }),
    );
    expect(() => checkToolResultBatch([item({ toolInput: 'x\u0000' })], limits, now)).toThrow(
      expect.objectContaining({ details: { field: 'input.0.toolInput' } }),
    );
    // A literal backslash-u-0000 in the text is fine.
    expect(() => checkToolResultBatch([item({ toolOutput: 'a\\u0000b' })], limits, now)).not.toThrow();
  });

  it('R-TR-5 an unpaired surrogate, which PostgreSQL cannot store, is BAD_USER_INPUT naming the field; a pair is fine', () => {
    expect(() => checkToolResultBatch([item({ toolOutput: { text: 'a\ud800b' } })], limits, now)).toThrow(
      expect.objectContaining({
        code: 'BAD_USER_INPUT',
        details: { field: 'input.0.toolOutput' },
        message: expect.stringContaining('unpaired surrogate'),
      }),
    );
    expect(() => checkToolResultBatch([item(), item({ toolInput: ['\udc00'] })], limits, now)).toThrow(
      expect.objectContaining({ details: { field: 'input.1.toolInput' } }),
    );
    expect(() => checkToolResultBatch([item({ toolUseId: 'id\ud83d' })], limits, now)).toThrow(
      expect.objectContaining({ details: { field: 'input.0.toolUseId' } }),
    );
    expect(() => checkToolResultBatch([item({ toolName: 'x\u0000' })], limits, now)).toThrow(
      expect.objectContaining({ details: { field: 'input.0.toolName' } }),
    );
    expect(() => checkToolResultBatch([item({ toolOutput: 'ok \u{1F600} \\ud800', toolUseId: 'id\u{1F600}' })], limits, now)).not.toThrow();
  });
});
