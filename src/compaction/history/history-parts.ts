import { isRecord } from '../../common/text/text-bounds';
import { isToolResultStub } from '../../tool-results';
import type { HistoryProblem, InputStubPlacement, StubPlacement, ToolCallSite, ToolOutput, ToolResultSite } from './history.types';

export { isRecord };

/** Small pieces every adapter uses: record checks, text parts, immutable stub placement. */

export type JsonRecord = Record<string, unknown>;

export function problem(path: string, error: string): HistoryProblem {
  return { path, error: `${path} ${error}` };
}

/** A string field that must be present. */
export function requireString(holder: JsonRecord, key: string, path: string): HistoryProblem | null {
  return typeof holder[key] === 'string' ? null : problem(`${path}.${key}`, 'must be a string');
}

/** A string field that may be absent (or null, where the format allows it). */
export function optionalString(holder: JsonRecord, key: string, path: string, nullable = false): HistoryProblem | null {
  const value = holder[key];
  if (value === undefined || typeof value === 'string' || (nullable && value === null)) return null;
  return problem(`${path}.${key}`, nullable ? 'must be a string or null' : 'must be a string');
}

/**
 * The text a model read from a tool output: a string as is, a list of text parts (`{type:
 * textType, text}`) joined with '\n'. Null for anything else (images, files, an empty list),
 * which compaction leaves alone: it could not be stored faithfully.
 */
export function textOutput(value: unknown, textType: string): ToolOutput | null {
  if (typeof value === 'string') return { kind: 'text', text: value };
  if (!Array.isArray(value) || value.length === 0) return null;
  const texts: string[] = [];
  for (const part of value as unknown[]) {
    if (!isRecord(part) || part.type !== textType || typeof part.text !== 'string') return null;
    texts.push(part.text);
  }
  return { kind: 'text', text: texts.join('\n') };
}

export function jsonOutput(value: unknown): ToolOutput {
  return { kind: 'json', value };
}

/** How one format writes a stub into an entry: a copy of `entry` with the one value replaced. */
interface StubWriters {
  /** The placed result's payload replaced by its stub. */
  result(entry: JsonRecord, placement: StubPlacement): JsonRecord;
  /** The placed call's arguments replaced by its input stub. */
  input(entry: JsonRecord, placement: InputStubPlacement): JsonRecord;
}

/**
 * A new list with every placement written into its entry; entries without one are the very
 * objects given. An entry with several placements (parallel calls in one message, Gemini parts,
 * a result and a call) gets them one after the other, each written into what the previous one
 * returned, so all of them land: results first, then inputs, each in the order given. Writers
 * spread what they change, so every key stays where the client put it and nothing given is mutated.
 */
export function placeStubs(
  entries: readonly object[],
  placements: readonly StubPlacement[],
  inputPlacements: readonly InputStubPlacement[],
  writers: StubWriters,
): object[] {
  const byEntry = new Map<number, ((entry: JsonRecord) => JsonRecord)[]>();
  const add = (entryIndex: number, write: (entry: JsonRecord) => JsonRecord) => {
    const list = byEntry.get(entryIndex) ?? [];
    list.push(write);
    byEntry.set(entryIndex, list);
  };
  for (const placement of placements) add(placement.site.entryIndex, (entry) => writers.result(entry, placement));
  for (const placement of inputPlacements) add(placement.call.entryIndex, (entry) => writers.input(entry, placement));
  return entries.map((entry, index) => {
    const writes = byEntry.get(index);
    return writes ? writes.reduce((changed, write) => write(changed), entry as JsonRecord) : entry;
  });
}

/** `entry[key]` with the part at `partIndex` swapped for `part`; the rest of the list shared. */
export function withPart(entry: JsonRecord, key: string, partIndex: number, part: object): JsonRecord {
  const parts = [...(entry[key] as unknown[])];
  parts[partIndex] = part;
  return { ...entry, [key]: parts };
}

/** The first call per id, so a result finds the call it answers. */
export function callsById<T extends { id: string | null }>(calls: readonly T[]): Map<string, T> {
  const byId = new Map<string, T>();
  for (const call of calls) if (call.id !== null && !byId.has(call.id)) byId.set(call.id, call);
  return byId;
}

export function unmatched(path: string, id: string, callKind: string): HistoryProblem {
  return problem(path, `${JSON.stringify(id)} answers no ${callKind} in the list; send the call with its result, or drop both`);
}

/**
 * A result that is a whole list entry with a text payload and no error flag (the two OpenAI
 * formats): `idKey` and `outputKey` name its fields.
 */
export function entryResult(
  entryIndex: number,
  callId: string,
  call: ToolCallSite,
  output: ToolOutput | null,
  idKey: string,
  outputKey: string,
): ToolResultSite {
  return {
    callId,
    call,
    toolName: call.name,
    output,
    isError: false,
    isStub: output?.kind === 'text' && isToolResultStub(output.text),
    entryIndex,
    partIndex: null,
    idPath: `messages.${entryIndex}.${idKey}`,
    outputPath: `messages.${entryIndex}.${outputKey}`,
  };
}
