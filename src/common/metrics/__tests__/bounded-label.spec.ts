import { BoundedLabel } from '../bounded-label';

describe('BoundedLabel', () => {
  it('R-TR-8 passes the first N distinct values and reports later new ones as other', () => {
    const label = new BoundedLabel(2);
    expect(['a', 'b', 'a', 'c', 'b', 'd'].map((v) => label.value(v))).toEqual(['a', 'b', 'a', 'other', 'b', 'other']);
  });

  it('R-TR-8 cuts long values', () => {
    expect(new BoundedLabel(5, { maxLength: 4 }).value('abcdefgh')).toBe('abcd');
  });

  it('R-TR-8 lets one team admit at most its share of new values; the others keep theirs', () => {
    const label = new BoundedLabel(10, { perOwner: 2 });
    expect(['a1', 'a2', 'a3', 'a4'].map((v) => label.value(v, 'team-a'))).toEqual(['a1', 'a2', 'other', 'other']);
    expect(['b1', 'b2', 'b3'].map((v) => label.value(v, 'team-b'))).toEqual(['b1', 'b2', 'other']);
  });

  it('R-TR-8 passes a value already admitted for every team, without using up their share', () => {
    const label = new BoundedLabel(10, { perOwner: 1 });
    expect(label.value('shared', 'team-a')).toBe('shared');
    expect(label.value('shared', 'team-b')).toBe('shared');
    expect(label.value('own', 'team-b')).toBe('own');
    expect(label.value('more', 'team-a')).toBe('other');
  });

  it('R-TR-8 keeps the overall limit when every team is within its share', () => {
    const label = new BoundedLabel(3, { perOwner: 2 });
    expect([label.value('a1', 'a'), label.value('a2', 'a'), label.value('b1', 'b'), label.value('b2', 'b')]).toEqual([
      'a1',
      'a2',
      'b1',
      'other',
    ]);
  });

  it('R-TR-8 counts a value cut to the same prefix once', () => {
    const label = new BoundedLabel(10, { perOwner: 1, maxLength: 3 });
    expect([label.value('abcX', 't'), label.value('abcY', 't')]).toEqual(['abc', 'abc']);
  });
});
