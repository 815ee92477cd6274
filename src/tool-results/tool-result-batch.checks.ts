import { BadUserInputError, PayloadTooLargeError } from '../common/errors/app-error';
import { isStorableText } from '../common/text/storable-text';

export const MAX_BATCH_ITEMS = 100;
/** How far in the future a client clock may be before `createdAt` is refused. */
const CLOCK_SKEW_MS = 5 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface BatchLimits {
  maxOutputBytes: number;
  maxInputBytes: number;
  retentionDays: number;
}

export interface BatchItem {
  toolUseId: string;
  toolName: string;
  /** The payloads as JSON text, serialized once by the caller. */
  toolInputJson: string;
  toolOutputJson: string;
  createdAt?: Date | null;
}

// PostgreSQL cannot store U+0000 nor a lone surrogate. JSON.stringify writes both as escapes (an
// odd run of backslashes, then u0000 or ud800–udfff: a well-formed pair is written as is).
const UNSTORABLE_ESCAPE = /(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f][0-9a-f]{2})/;

function mib(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

function unstorable(path: string): BadUserInputError {
  return new BadUserInputError(
    path,
    `${path} contains a NUL character (\\u0000) or an unpaired surrogate (\\ud800–\\udfff), which cannot be stored; remove or replace it.`,
  );
}

/**
 * Checks a batch before any SQL runs (R-TR-1, R-TR-5): its size, each payload's serialized
 * size and each optional `createdAt`. Throws the first violation with its field path.
 */
export function checkToolResultBatch(items: readonly BatchItem[], limits: BatchLimits, now: Date, field = 'input'): void {
  if (items.length === 0 || items.length > MAX_BATCH_ITEMS) {
    throw new BadUserInputError(field, `${field} must hold 1 to ${MAX_BATCH_ITEMS} tool results; split larger batches.`);
  }
  items.forEach((item, index) => {
    const path = `${field}.${index}`;
    const outputBytes = Buffer.byteLength(item.toolOutputJson);
    if (outputBytes > limits.maxOutputBytes) {
      throw new PayloadTooLargeError(
        `${path}.toolOutput is ${outputBytes} bytes serialized; the limit is ${mib(limits.maxOutputBytes)} (TOOL_OUTPUT_MAX_BYTES).`,
        `${path}.toolOutput`,
      );
    }
    const inputBytes = Buffer.byteLength(item.toolInputJson);
    if (inputBytes > limits.maxInputBytes) {
      throw new PayloadTooLargeError(
        `${path}.toolInput is ${inputBytes} bytes serialized; the limit is ${mib(limits.maxInputBytes)} (TOOL_INPUT_MAX_BYTES).`,
        `${path}.toolInput`,
      );
    }
    for (const [name, json] of [
      ['toolInput', item.toolInputJson],
      ['toolOutput', item.toolOutputJson],
    ] as const) {
      if (UNSTORABLE_ESCAPE.test(json)) throw unstorable(`${path}.${name}`);
    }
    for (const [name, text] of [
      ['toolUseId', item.toolUseId],
      ['toolName', item.toolName],
    ] as const) {
      if (!isStorableText(text)) throw unstorable(`${path}.${name}`);
    }
    if (item.createdAt) {
      const at = item.createdAt.getTime();
      if (at > now.getTime() + CLOCK_SKEW_MS) {
        throw new BadUserInputError(`${path}.createdAt`, `${path}.createdAt is in the future; send the time the tool returned.`);
      }
      if (at < now.getTime() - limits.retentionDays * DAY_MS) {
        throw new BadUserInputError(
          `${path}.createdAt`,
          `${path}.createdAt is older than the ${limits.retentionDays}-day retention window.`,
        );
      }
    }
  });
}
