import { BoundedLabel } from '../bounded-label';

describe('BoundedLabel', () => {
  it('R-TR-8 passes the first N distinct values and reports later new ones as other', () => {
    const label = new BoundedLabel(2);
    expect(['a', 'b', 'a', 'c', 'b', 'd'].map((v) => label.value(v))).toEqual(['a', 'b', 'a', 'other', 'b', 'other']);
  });

  it('R-TR-8 cuts long values', () => {
    expect(new BoundedLabel(5, 4).value('abcdefgh')).toBe('abcd');
  });
});
