import { COUNTING_TASK_CHARS } from '../../../src/common/text/token-counter';
import { countTokens, o200kTokenizer } from '../../../src/common/text/tokenizer';
import { ServedTextCache } from '../../../src/lookup/served-text-cache';
import { seededRandom } from '../../seeded';
import type { RunFigures } from '../figures';
import { measureInProcess, type Probe } from '../measure';

/** What is measured on this process's own thread: a pool task's CPU, and the memory a cache keeps at its bound. */

/** LOOKUP_TEXT_CACHE_CHARS. */
const TEXT_CACHE_CHARS = 8_000_000;
/** The slowest text found to tokenize per character: CJK, no two runs alike. */
const CJK = '漢字仮名交じり文日本語中文한국어';

/** A flat string (joined, not appended: a rope of millions of parts would be flattened inside the measured work). */
function randomText(seed: number, alphabet: string, chars: number): string {
  const random = seededRandom(seed);
  return Array.from({ length: chars }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
}

/** Figures of a pool task measured on this thread: the CPU a pool thread spends, none on the event loop. */
const asPoolTask = (runs: RunFigures[]): RunFigures[] => runs.map((run) => ({ ...run, poolMs: run.loopMs, loopMs: 0, holdMs: 0 }));

export const inProcessProbes: Probe[] = [
  {
    id: 'T1',
    path: 'Token count: one task of the token-count pool',
    grows: 'task length, tokens per character',
    bound: 'COUNTING_TASK_CHARS = 131,072 a task (a text with no cut point stays whole); budget 2 s + 2 ms per 1,000 chars',
    runsOn: 'token-count pool (measured here, on one thread)',
    worstCase: `${COUNTING_TASK_CHARS.toLocaleString('en-US')} chars of random CJK`,
    measure: (ctx) =>
      asPoolTask(
        measureInProcess(
          ctx.runs,
          (run) => randomText(20261212 + run, CJK, COUNTING_TASK_CHARS),
          (text) => countTokens(text),
        ),
      ),
  },
  {
    id: 'M1',
    path: 'Served-text cache: payload texts kept for walks, with their token pieces',
    grows: 'texts kept',
    bound: 'LOOKUP_TEXT_CACHE_CHARS = 8,000,000 chars',
    runsOn: 'event loop heap (measured here)',
    worstCase: 'full of two-byte text: 4 texts of 2,000,000 CJK chars',
    measure: (ctx) =>
      measureInProcess(
        ctx.runs,
        (run) => Array.from({ length: 4 }, (_, i) => randomText(20261213 + run * 4 + i, CJK, TEXT_CACHE_CHARS / 4)),
        (texts) => {
          const cache = new ServedTextCache(TEXT_CACHE_CHARS, o200kTokenizer);
          texts.forEach((text, i) => cache.put(`mem_${i}`, text));
          return cache;
        },
        { memory: true },
      ),
  },
];
