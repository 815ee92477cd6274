/**
 * What compaction needs from a message history, whatever its wire format: the tool calls and
 * the tool results in list order, each with where it sits, so the one set of steps in
 * `compaction.ts` can pick candidates and an adapter can write stubs back.
 */

export enum MessageFormat {
  AUTO = 'AUTO',
  ANTHROPIC = 'ANTHROPIC',
  OPENAI_CHAT = 'OPENAI_CHAT',
  OPENAI_RESPONSES = 'OPENAI_RESPONSES',
  GEMINI = 'GEMINI',
  AI_SDK = 'AI_SDK',
}

export type ConcreteFormat = Exclude<MessageFormat, MessageFormat.AUTO>;

/**
 * The one key of the object that replaces a call's arguments (`{compacted_input: stub}`): every
 * format wants an object there, or a JSON string of one (OpenAI), so the call stays valid.
 */
export const INPUT_STUB_KEY = 'compacted_input';

export interface ToolCallSite {
  id: string | null;
  name: string;
  /** The call's arguments as the format holds them (OpenAI's JSON string parsed when it parses). */
  input: unknown;
  /** Index of the list entry holding the call, and that entry's own `id` when it is a string. */
  entryIndex: number;
  entryId: string | null;
  /** Index of the call inside its entry (block, part, `tool_calls` item); null when the entry is the call (Responses items). */
  partIndex: number | null;
  /**
   * Length of the arguments as the format holds them: OpenAI's `arguments` string or a custom
   * tool's `input` string; else `JSON.stringify(input).length`.
   */
  inputChars: number;
  /** The arguments are already one of our input stubs: clearing them again would store the stub. */
  inputIsStub: boolean;
  /** Paths (`messages.3.tool_calls.0.function.name`) for error messages; `idPath` the call id's (its name's when it has none). */
  idPath: string;
  namePath: string;
  inputPath: string;
}

/** A result's payload: text the model read, or a JSON object (Gemini `response`, AI SDK `json`). */
export type ToolOutput = { kind: 'text'; text: string } | { kind: 'json'; value: unknown };

export interface ToolResultSite {
  /** The id pairing it with its call; null where the format lets a result go without one (Gemini). */
  callId: string | null;
  call: ToolCallSite | null;
  /** The tool name the result carries itself (Gemini, AI SDK), else the call's. */
  toolName: string;
  /** Null when the payload cannot be stored faithfully (images, files, absent content). */
  output: ToolOutput | null;
  isError: boolean;
  /** Already one of our stubs: compacting it again would store the stub. */
  isStub: boolean;
  entryIndex: number;
  /** Index of the part inside the entry, or null when the entry is the result (OpenAI). */
  partIndex: number | null;
  idPath: string;
  outputPath: string;
}

export interface HistoryReading {
  calls: ToolCallSite[];
  results: ToolResultSite[];
}

/** A problem found in a client's history, at a path under `messages`. */
export interface HistoryProblem {
  path: string;
  error: string;
}

export interface StubPlacement {
  site: ToolResultSite;
  stub: string;
}

/** A call whose arguments give way to `{compacted_input: stub}` (or the stub text, custom tools). */
export interface InputStubPlacement {
  call: ToolCallSite;
  stub: string;
}

/**
 * One wire format. `read` checks only what compaction relies on and names the first offending
 * path; `writeStubs` returns a new list in which each placed result carries its stub and each
 * placed call its input stub, every other entry shared as given (never copied or mutated), and the
 * changed entries keep their key order. Without input placements the output is what it was before
 * calls could be stubbed, byte for byte.
 */
export interface HistoryAdapter {
  read(entries: readonly object[]): HistoryReading | HistoryProblem;
  writeStubs(entries: readonly object[], placements: readonly StubPlacement[], inputPlacements?: readonly InputStubPlacement[]): object[];
}

export function isProblem<T extends object>(value: T | HistoryProblem): value is HistoryProblem {
  return !Array.isArray(value) && 'error' in value;
}
