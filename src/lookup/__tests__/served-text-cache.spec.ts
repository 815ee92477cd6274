import { o200kTokenizer } from '../../common/text/tokenizer';
import { ServedTextCache } from '../served-text-cache';

describe('ServedTextCache', () => {
  it('R-LG-2 keeps texts up to its bound in characters, the least recently used going first', () => {
    const cache = new ServedTextCache(10, o200kTokenizer);
    cache.put('mem_a', 'aaaa');
    cache.put('mem_b', 'bbbb');
    expect(cache.get('mem_a')?.text).toBe('aaaa');
    cache.put('mem_c', 'cccc');
    expect(cache.get('mem_b')).toBeUndefined();
    expect(cache.get('mem_a')?.text).toBe('aaaa');
    expect(cache.get('mem_c')?.text).toBe('cccc');
    expect(cache.size).toBe(8);
  });

  it('R-LG-2 a text over the bound is served but not kept; a deleted one is gone; a zero bound keeps nothing', () => {
    const cache = new ServedTextCache(10, o200kTokenizer);
    expect(cache.put('mem_big', 'x'.repeat(11)).text).toHaveLength(11);
    expect(cache.get('mem_big')).toBeUndefined();
    cache.put('mem_a', 'aaaa');
    cache.delete('mem_a');
    expect(cache.get('mem_a')).toBeUndefined();
    expect(cache.size).toBe(0);
    const none = new ServedTextCache(0, o200kTokenizer);
    none.put('mem_a', 'a');
    expect(none.get('mem_a')).toBeUndefined();
  });
});
