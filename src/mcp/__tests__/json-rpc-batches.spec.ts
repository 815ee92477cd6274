import { isRemovedBatch } from '../json-rpc-batches';

describe('isRemovedBatch (R-TN-10)', () => {
  const batch = [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }];

  it('R-TN-10 refuses a batch under 2025-06-18 and later revisions', () => {
    expect(isRemovedBatch(batch, '2025-06-18')).toBe(true);
    expect(isRemovedBatch(batch, '2025-11-25')).toBe(true);
  });

  it('R-TN-10 keeps batches under older revisions, and without the header (the SDK assumes 2025-03-26)', () => {
    expect(isRemovedBatch(batch, '2025-03-26')).toBe(false);
    expect(isRemovedBatch(batch, '2024-11-05')).toBe(false);
    expect(isRemovedBatch(batch, undefined)).toBe(false);
  });

  it('R-TN-10 a single message is never a batch; a header that is no date is left to the SDK', () => {
    expect(isRemovedBatch(batch[0], '2025-06-18')).toBe(false);
    expect(isRemovedBatch(batch, 'latest')).toBe(false);
    expect(isRemovedBatch(batch, ['2025-06-18', '2025-06-18'])).toBe(false);
  });
});
