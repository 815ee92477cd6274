import { aiSdkAdapter } from './ai-sdk.adapter';
import { anthropicAdapter } from './anthropic.adapter';
import { formatSigns, resolveFormat } from './detect-format';
import { geminiAdapter } from './gemini.adapter';
import { problem } from './history-parts';
import {
  type ConcreteFormat,
  type HistoryAdapter,
  type HistoryProblem,
  type HistoryReading,
  isProblem,
  MessageFormat,
} from './history.types';
import { openAiChatAdapter } from './openai-chat.adapter';
import { openAiResponsesAdapter } from './openai-responses.adapter';

const ADAPTERS: Record<ConcreteFormat, HistoryAdapter> = {
  [MessageFormat.ANTHROPIC]: anthropicAdapter,
  [MessageFormat.OPENAI_CHAT]: openAiChatAdapter,
  [MessageFormat.OPENAI_RESPONSES]: openAiResponsesAdapter,
  [MessageFormat.GEMINI]: geminiAdapter,
  [MessageFormat.AI_SDK]: aiSdkAdapter,
};

/** A client's history with its format settled and read; `adapter` null when AUTO found no tool call or result. */
export interface History {
  entries: object[];
  format: MessageFormat;
  adapter: HistoryAdapter | null;
  reading: HistoryReading;
}

/** Untrusted JSON as a history in the format asked for (or detected), or the first problem in it. */
export function readHistory(value: unknown, requested: MessageFormat): History | HistoryProblem {
  if (!Array.isArray(value)) return problem('messages', 'must be an array (the message list, or the Responses input items)');
  const entries = value as object[];
  // Every format's list is one of objects.
  const odd = (value as unknown[]).findIndex((entry) => typeof entry !== 'object' || entry === null || Array.isArray(entry));
  if (odd >= 0) return problem(`messages.${odd}`, 'must be an object');
  const signs = formatSigns(entries);
  if (isProblem(signs)) return signs;
  const format = resolveFormat(requested, signs);
  if (format !== null && typeof format === 'object') return format;
  if (format === null) return { entries, format: MessageFormat.AUTO, adapter: null, reading: { calls: [], results: [] } };
  const adapter = ADAPTERS[format];
  const reading = adapter.read(entries);
  return isProblem(reading) ? reading : { entries, format, adapter, reading };
}
