import { MEM_ID_PATTERN, newMemId } from '../mem-id';

describe('newMemId', () => {
  it('R-LG-1 is mem_ plus 16 base32 characters, different every time', () => {
    const ids = Array.from({ length: 2000 }, newMemId);
    for (const id of ids) expect(id).toMatch(MEM_ID_PATTERN);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
