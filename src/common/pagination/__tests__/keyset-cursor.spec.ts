import { checkPageSize, decodeCursor, encodeCursor } from '../keyset-cursor';

describe('keyset cursors', () => {
  const position = { createdAt: '2026-05-12T10:11:12.123456Z', id: '0b6f2a4e-3c1d-4e8f-9a7b-2c5d6e7f8a9b' };

  it('R-TR-7 round-trip a position, microseconds included, as an opaque string', () => {
    const cursor = encodeCursor(position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toEqual(position);
  });

  it.each(['', 'garbage', Buffer.from('[1,2]').toString('base64url'), Buffer.from('["2026-05-12", "x"]').toString('base64url')])(
    'R-TR-7 refuse %p as BAD_USER_INPUT on the after field',
    (cursor) => {
      expect(() => decodeCursor(cursor)).toThrow(expect.objectContaining({ code: 'BAD_USER_INPUT', details: { field: 'after' } }));
    },
  );

  it('R-OP-5 page sizes are 1 to 100', () => {
    expect(checkPageSize(100)).toBe(100);
    for (const bad of [0, 101, -1, 2.5]) expect(() => checkPageSize(bad)).toThrow('first must be between 1 and 100');
  });
});
