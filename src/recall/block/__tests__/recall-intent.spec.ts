import { INTENT_READ_CHARS, looksLikeRecall, RECALL_INTENT_PATTERNS } from '../recall-intent';

describe('recall intent', () => {
  it.each([
    'what plans did you show me last time?',
    'What did the trend look like?',
    'you showed me the members list, who was newest?',
    'As I asked PREVIOUSLY, which plan leads?',
    'the numbers from earlier, please',
    'show me that again',
    'Did you say Starter Pack was the top plan?',
    'can you remind me of the plan counts',
    'compare with the previous results',
  ])('R-RC-5 reads "%s" as recall', (message) => {
    expect(looksLikeRecall(message)).toBe(true);
  });

  it.each([
    'how many members now?',
    'how many active members right now?',
    'list the plans',
    'what is the weekly trend of active members?',
    'show me the lastest signups', // "last" inside another word is not "last time"
    'the agains column is empty', // word-bounded: no match inside a word
    '',
  ])('R-RC-5 reads "%s" as a fresh question', (message) => {
    expect(looksLikeRecall(message)).toBe(false);
  });

  it('R-RC-5 treats a missing message as no recall', () => {
    expect(looksLikeRecall(null)).toBe(false);
    expect(looksLikeRecall(undefined)).toBe(false);
  });

  it('R-RC-5 R-TN-10 reads the first and the last 2,000 characters of a long message, not what was pasted between them', () => {
    expect(INTENT_READ_CHARS).toBe(2000);
    const pasted = 'row data '.repeat(1_000_000);
    expect(looksLikeRecall(`what did the report say? ${pasted}`)).toBe(true);
    expect(looksLikeRecall(`${pasted} what did the report say?`)).toBe(true);
    expect(looksLikeRecall(`${pasted} what did the report say? ${pasted}`)).toBe(false);
    // At the bound the message is read whole: a phrase across the middle still counts.
    const half = 'x '.repeat(INTENT_READ_CHARS / 2 - 4);
    expect(looksLikeRecall(`${half}last time ${half}`)).toBe(true);
  });

  it('R-RC-5 keeps every pattern case-insensitive and stateless', () => {
    for (const pattern of RECALL_INTENT_PATTERNS) {
      expect(pattern.flags).toContain('i');
      expect(pattern.flags).not.toMatch(/[gy]/);
    }
    expect([1, 2, 3].map(() => looksLikeRecall('last time'))).toEqual([true, true, true]);
  });
});
