import { randomFillSync } from 'node:crypto';
import { ulid } from 'ulid';

const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let next = POOL_BYTES;

/**
 * ulid's random source: bytes of Node's CSPRNG, drawn 4 KB at a time. ulid's own asks the
 * CSPRNG for one byte per character, sixteen synchronous calls an id (40 µs of a recallBlock
 * request in the issue-25 CPU profile); these are the same kind of bytes, fetched in bulk.
 */
function pooledRandom(): number {
  if (next === POOL_BYTES) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++] / 256;
}

/** A ULID: 48 bits of milliseconds, then 80 random bits (sortable by creation time). */
export function newUlid(): string {
  return ulid(undefined, pooledRandom);
}
