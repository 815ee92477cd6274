import { randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567'; // RFC 4648 base32, lower case

/** `mem_` + 16 base32 characters: 80 bits from the CSPRNG, the snapshot's public address. */
export function newMemId(): string {
  const bytes = randomBytes(10);
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return `mem_${out}`;
}

export const MEM_ID_PATTERN = /^mem_[a-z2-7]{16}$/;
