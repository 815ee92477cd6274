import { decodeTime, isValid } from 'ulid';
import { newUlid } from '../new-ulid';

describe('newUlid', () => {
  it('R-RC-9 R-FB-7 ids are valid ULIDs stamped with the current millisecond', () => {
    const before = Date.now();
    const id = newUlid();
    expect(isValid(id)).toBe(true);
    expect(decodeTime(id)).toBeGreaterThanOrEqual(before);
    expect(decodeTime(id)).toBeLessThanOrEqual(Date.now());
  });

  it('R-RC-9 R-FB-7 the random part is unique and uses every character evenly, across refills of the byte pool', () => {
    // 2,000 ids take 32,000 random bytes: the 4 KB pool is refilled several times.
    const ids = Array.from({ length: 2000 }, newUlid);
    expect(new Set(ids).size).toBe(ids.length);
    const counts = new Map<string, number>();
    for (const id of ids) for (const char of id.slice(10)) counts.set(char, (counts.get(char) ?? 0) + 1);
    // 32,000 characters over 32 symbols: 1,000 each expected; a stuck or biased source is far off.
    expect(counts.size).toBe(32);
    for (const count of counts.values()) expect(Math.abs(count - 1000)).toBeLessThan(200);
  });
});
