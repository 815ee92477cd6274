import { isRecord, type JsonRecord } from './history-parts';
import { type ConcreteFormat, type HistoryProblem, MessageFormat } from './history.types';

/** How each format is named to a client. */
export const FORMAT_NAMES: Record<ConcreteFormat, string> = {
  [MessageFormat.ANTHROPIC]: 'Anthropic Messages',
  [MessageFormat.OPENAI_CHAT]: 'OpenAI Chat Completions',
  [MessageFormat.OPENAI_RESPONSES]: 'OpenAI Responses',
  [MessageFormat.GEMINI]: 'Gemini',
  [MessageFormat.AI_SDK]: 'AI SDK',
};

export interface FormatSign {
  format: ConcreteFormat;
  /** Where it was seen, e.g. `messages.3.content.0`, and what (`a tool_result block`). */
  path: string;
  what: string;
}

/**
 * The tool-call and tool-result shapes each format alone uses, first one per format in list
 * order. No sign at all: the list holds no tool call or result of any format. A `role: 'tool'`
 * message that fits neither format using that role is refused here, since no adapter would read it.
 */
export function formatSigns(entries: readonly unknown[]): FormatSign[] | HistoryProblem {
  const signs = new Map<ConcreteFormat, FormatSign>();
  const note = (sign: FormatSign | null) => {
    if (sign && !signs.has(sign.format)) signs.set(sign.format, sign);
  };
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index];
    if (!isRecord(entry)) continue;
    const path = `messages.${index}`;
    const unfit = unfitToolMessage(entry, path);
    if (unfit) return unfit;
    note(openAiChatSign(entry, path));
    note(responsesSign(entry, path));
    note(partSign(entry.parts, `${path}.parts`, geminiPartSign));
    note(partSign(entry.content, `${path}.content`, blockSign));
  }
  return [...signs.values()];
}

/**
 * The format a list is in: the one asked for, or the one its signs show. Null when AUTO sees no
 * tool call or result. Signs of two formats, or of another format than the one asked for, are refused.
 */
export function resolveFormat(requested: MessageFormat, signs: readonly FormatSign[]): ConcreteFormat | null | HistoryProblem {
  const foreign = requested === MessageFormat.AUTO ? signs.slice(1) : signs.filter((sign) => sign.format !== requested);
  if (foreign.length > 0) {
    const first = requested === MessageFormat.AUTO ? signs[0] : null;
    const seen = first
      ? `${describe(first)} and ${describe(foreign[0])}`
      : `${describe(foreign[0])}, not ${FORMAT_NAMES[requested as ConcreteFormat]}`;
    const path = foreign[0].path.split('.').slice(0, 2).join('.');
    return {
      path,
      error: `${path} does not fit the list's format: saw ${seen}; send one format and set messageFormat (ANTHROPIC, OPENAI_CHAT, OPENAI_RESPONSES, GEMINI or AI_SDK)`,
    };
  }
  if (requested !== MessageFormat.AUTO) return requested;
  return signs.length > 0 ? signs[0].format : null;
}

function describe(sign: FormatSign): string {
  return `${FORMAT_NAMES[sign.format]} ${sign.what} at ${sign.path}`;
}

function openAiChatSign(entry: JsonRecord, path: string): FormatSign | null {
  if (entry.role === 'assistant' && Array.isArray(entry.tool_calls) && entry.tool_calls.length > 0) {
    return { format: MessageFormat.OPENAI_CHAT, path: `${path}.tool_calls`, what: 'tool_calls' };
  }
  if (entry.role === 'tool' && 'tool_call_id' in entry) return { format: MessageFormat.OPENAI_CHAT, path, what: 'a tool message' };
  return null;
}

const RESPONSES_TOOL_ITEM = /^[a-z_]+_call(_output)?$/;

function responsesSign(entry: JsonRecord, path: string): FormatSign | null {
  if (typeof entry.type !== 'string' || !RESPONSES_TOOL_ITEM.test(entry.type)) return null;
  return { format: MessageFormat.OPENAI_RESPONSES, path, what: `a ${entry.type} item` };
}

function partSign(parts: unknown, path: string, sign: (part: JsonRecord, path: string) => FormatSign | null): FormatSign | null {
  if (!Array.isArray(parts)) return null;
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index] as unknown;
    const found = isRecord(part) ? sign(part, `${path}.${index}`) : null;
    if (found) return found;
  }
  return null;
}

function geminiPartSign(part: JsonRecord, path: string): FormatSign | null {
  if (part.functionCall !== undefined) return { format: MessageFormat.GEMINI, path, what: 'a functionCall part' };
  if (part.functionResponse !== undefined) return { format: MessageFormat.GEMINI, path, what: 'a functionResponse part' };
  return null;
}

function blockSign(part: JsonRecord, path: string): FormatSign | null {
  switch (part.type) {
    case 'tool_use':
    case 'tool_result':
      return { format: MessageFormat.ANTHROPIC, path, what: `a ${part.type} block` };
    case 'tool-call':
    case 'tool-result':
      return { format: MessageFormat.AI_SDK, path, what: `a ${part.type} part` };
    default:
      return null;
  }
}

function unfitToolMessage(entry: JsonRecord, path: string): HistoryProblem | null {
  if (entry.role !== 'tool' || 'tool_call_id' in entry || Array.isArray(entry.content)) return null;
  return {
    path,
    error: `${path} has role 'tool' but fits no format: OpenAI Chat needs tool_call_id, the AI SDK a content array of tool-result parts; set messageFormat`,
  };
}
