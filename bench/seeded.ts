import { createHash } from 'node:crypto';
import { seededRandom } from '../test/support/seeded-random';

export { seededRandom };

/** The data set's seed: the same seed gives the same rows, ids and request sequences. */
export const BENCH_SEED = Number(process.env.BENCH_SEED ?? 20261129);

export function pickIndex(random: () => number, length: number): number {
  return Math.floor(random() * length);
}

/**
 * A UUID derived from the seed and a key, shaped as a version-4 UUID (the API validates ids).
 * `seededUuidSql` computes the very same value inside PostgreSQL.
 */
export function seededUuid(key: string): string {
  const hex = createHash('md5').update(`${BENCH_SEED}:${key}`).digest('hex');
  const variant = '89ab'[parseInt(hex[16], 16) % 4];
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** SQL twin of `seededUuid`, for a text expression `keySql` (the seed is prefixed here). */
export function seededUuidSql(keySql: string): string {
  const h = `md5('${BENCH_SEED}:' || ${keySql})`;
  return `(substr(${h}, 1, 12) || '4' || substr(${h}, 14, 3)
    || substr('89ab', (('x' || substr(${h}, 17, 1))::bit(4)::int % 4) + 1, 1)
    || substr(${h}, 18, 15))::uuid`;
}
