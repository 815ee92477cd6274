import { parseDottedPath } from '../dotted-path';

describe('parseDottedPath', () => {
  it('R-LG-2 splits a dotted path into the text path elements of #>', () => {
    expect(parseDottedPath('items.3.price')).toEqual(['items', '3', 'price']);
    expect(parseDottedPath('a.b')).toEqual(['a', 'b']);
    expect(parseDottedPath('a.0')).toEqual(['a', '0']);
    expect(parseDottedPath('total')).toEqual(['total']);
  });

  it('R-LG-2 rejects empty and malformed paths with null', () => {
    for (const path of ['', '.', 'a.', '.a', 'a..b']) expect(parseDottedPath(path)).toBeNull();
    expect(parseDottedPath(Array.from({ length: 65 }, () => 'a').join('.'))).toBeNull();
    expect(parseDottedPath(Array.from({ length: 64 }, () => 'a').join('.'))).toHaveLength(64);
    expect(parseDottedPath(`a.${'k'.repeat(257)}`)).toBeNull();
    expect(parseDottedPath(`a.${'k'.repeat(256)}`)).toEqual(['a', 'k'.repeat(256)]);
  });
});
