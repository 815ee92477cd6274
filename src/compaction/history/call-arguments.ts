import { isRecord } from '../../common/text/text-bounds';
import { isToolResultStub } from '../../tool-results';
import { INPUT_STUB_KEY, type ToolCallSite } from './history.types';

/**
 * A call's arguments as compaction sees them — the value, its size as the format holds it, and
 * whether it is already one of our input stubs — and the input stub itself in each of the three
 * shapes the formats hold arguments in (an object, OpenAI's JSON text, a custom tool's free text).
 */

export type CallArguments = Pick<ToolCallSite, 'input' | 'inputChars' | 'inputIsStub'>;

/** What replaces arguments held as an object: one key, so a tool's own keys never clash with it. */
export function inputStub(stub: string): { [INPUT_STUB_KEY]: string } {
  return { [INPUT_STUB_KEY]: stub };
}

/** OpenAI holds `function` arguments as JSON text: the input stub's object as JSON, still an object for the API. */
export function inputStubArguments(stub: string): string {
  return JSON.stringify(inputStub(stub));
}

/** Arguments held as an object (Anthropic, Gemini, AI SDK), measured as JSON. */
export function objectArguments(input: unknown): CallArguments {
  return { input, inputChars: JSON.stringify(input).length, inputIsStub: isInputStub(input) };
}

/** OpenAI `function` arguments: JSON text, measured as sent, parsed when it parses and kept as the text otherwise. */
export function textArguments(text: string): CallArguments {
  const input = parsedArguments(text);
  return { input, inputChars: text.length, inputIsStub: isInputStub(input) };
}

/** A custom tool's free-text input (both OpenAI formats): the stub replaces the text itself. */
export function customInput(text: string): CallArguments {
  return { input: text, inputChars: text.length, inputIsStub: isToolResultStub(text) };
}

/** Exactly `{compacted_input: <one of our stubs>}`: a tool's own arguments carry other keys, or no stub. */
function isInputStub(input: unknown): boolean {
  if (!isRecord(input)) return false;
  const keys = Object.keys(input);
  const stub = input[INPUT_STUB_KEY];
  return keys.length === 1 && keys[0] === INPUT_STUB_KEY && typeof stub === 'string' && isToolResultStub(stub);
}

function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
