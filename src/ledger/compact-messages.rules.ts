import { AppError, BadUserInputError } from '../common/errors/app-error';
import { UUID_PATTERN } from '../common/uuid-pattern';
import type { ToolResultInput } from '../tool-results';
import { deterministicMessageId } from './compaction';
import type { CompactionCandidate, CompactionOptions } from './compaction.types';
import { type HistoryProblem, isProblem, MessageFormat } from './history/history.types';
import { type History, readHistory } from './history/read-history';

export const COMPACTION_DEFAULTS = { sizeThreshold: 2000, keepLastN: 3, clearAtLeastTokens: 0 } as const;
export const MAX_EXCLUDE_TOOLS = 100;
const MAX_TOOL_NAME_CHARS = 128;
const MAX_TOOL_USE_ID_CHARS = 256;

/** `compactMessages`' input as GraphQL hands it over; an explicit null means the default. */
export interface CompactMessagesArgs {
  spaceId: string;
  conversationId: string;
  messages: unknown;
  messageFormat?: MessageFormat | null;
  sizeThreshold?: number | null;
  keepLastN?: number | null;
  excludeTools?: readonly string[] | null;
  clearAtLeastTokens?: number | null;
}

export interface CompactMessagesRequest {
  spaceId: string;
  conversationId: string;
  history: History;
  options: CompactionOptions;
  clearAtLeastTokens: number;
}

/** Checks the whole input before any SQL runs (R-OP-5), naming the offending field. */
export function checkCompactMessagesInput(input: CompactMessagesArgs, field = 'input'): CompactMessagesRequest {
  const spaceId = uuid(input.spaceId, `${field}.spaceId`);
  const conversationId = uuid(input.conversationId, `${field}.conversationId`);
  const sizeThreshold = atLeast(input.sizeThreshold ?? COMPACTION_DEFAULTS.sizeThreshold, 1, `${field}.sizeThreshold`);
  const keepLastN = atLeast(input.keepLastN ?? COMPACTION_DEFAULTS.keepLastN, 0, `${field}.keepLastN`);
  const clearAtLeastTokens = atLeast(input.clearAtLeastTokens ?? COMPACTION_DEFAULTS.clearAtLeastTokens, 0, `${field}.clearAtLeastTokens`);
  const excludeTools = input.excludeTools ?? [];
  if (excludeTools.length > MAX_EXCLUDE_TOOLS) {
    throw new BadUserInputError(`${field}.excludeTools`, `${field}.excludeTools may name at most ${MAX_EXCLUDE_TOOLS} tools.`);
  }
  excludeTools.forEach((name, index) => {
    if (name.length === 0 || name.length > MAX_TOOL_NAME_CHARS) {
      throw new BadUserInputError(
        `${field}.excludeTools.${index}`,
        `${field}.excludeTools.${index} must be 1 to ${MAX_TOOL_NAME_CHARS} characters.`,
      );
    }
  });
  const history = readHistory(input.messages, input.messageFormat ?? MessageFormat.AUTO);
  if (isProblem(history)) throw historyError(history, field);
  return { spaceId, conversationId, history, options: { sizeThreshold, keepLastN, excludeTools }, clearAtLeastTokens };
}

function historyError(found: HistoryProblem, field: string): BadUserInputError {
  return new BadUserInputError(`${field}.${found.path}`, `${field}.${found.error}.`);
}

/** The ids a candidate is stored under must fit the snapshot columns; refused before any SQL. */
export function checkCandidates(candidates: readonly CompactionCandidate[], field = 'input'): void {
  for (const candidate of candidates) {
    if (candidate.toolUseId.length === 0 || candidate.toolUseId.length > MAX_TOOL_USE_ID_CHARS) {
      const path = `${field}.${candidate.site.idPath}`;
      throw new BadUserInputError(path, `${path} must be 1 to ${MAX_TOOL_USE_ID_CHARS} characters.`);
    }
    if (candidate.toolName.length === 0 || candidate.toolName.length > MAX_TOOL_NAME_CHARS || /\s/.test(candidate.toolName)) {
      const path = `${field}.${candidate.site.call?.namePath ?? candidate.site.idPath}`;
      throw new BadUserInputError(path, `${path} must be 1 to ${MAX_TOOL_NAME_CHARS} characters without white space.`);
    }
  }
}

/**
 * What the write path stores for each candidate: the payload (text, or the JSON object a Gemini
 * or AI SDK result gave), attached to the entry holding the call — its own id when that is a
 * UUID, else one derived from the conversation and the call id, so every call and replica picks
 * the same message.
 */
export function recordItemsOf(request: CompactMessagesRequest, candidates: readonly CompactionCandidate[]): ToolResultInput[] {
  return candidates.map((candidate) => ({
    spaceId: request.spaceId,
    conversationId: request.conversationId,
    messageId:
      candidate.assistantMessageId !== null && UUID_PATTERN.test(candidate.assistantMessageId)
        ? candidate.assistantMessageId.toLowerCase()
        : deterministicMessageId(request.conversationId, candidate.toolUseId),
    toolUseId: candidate.toolUseId,
    toolName: candidate.toolName,
    toolInput: candidate.toolInput,
    toolOutput: candidate.payload,
  }));
}

/**
 * The write path names fields of its own batch (`batch.3.messageId`); the client sent a message
 * list, so such an error is re-pointed at the entry, call or result it came from.
 */
export function relocateRecordError(error: unknown, batchField: string, batch: readonly CompactionCandidate[], field = 'input'): unknown {
  if (!(error instanceof AppError) || typeof error.details.field !== 'string') return error;
  const match = new RegExp(`^${batchField}\\.(\\d+)\\.(\\w+)$`).exec(error.details.field);
  const candidate = match ? batch[Number(match[1])] : undefined;
  if (!match || !candidate) return error;
  const { site } = candidate;
  const paths: Record<string, string> = {
    spaceId: `${field}.spaceId`,
    conversationId: `${field}.conversationId`,
    messageId: `${field}.messages.${site.call?.entryIndex ?? site.entryIndex}.id`,
    toolInput: `${field}.${site.call?.inputPath ?? site.idPath}`,
    toolName: `${field}.${site.call?.namePath ?? site.idPath}`,
    toolUseId: `${field}.${site.idPath}`,
    toolOutput: `${field}.${site.outputPath}`,
  };
  const path = paths[match[2]];
  if (path === undefined) return error;
  return new AppError(error.code, error.message.split(error.details.field).join(path), { ...error.details, field: path });
}

function uuid(value: string, path: string): string {
  if (!UUID_PATTERN.test(value)) throw new BadUserInputError(path, `${path} must be a UUID, e.g. 0b6f2a4e-3c1d-4e8f-9a7b-2c5d6e7f8a9b.`);
  return value.toLowerCase();
}

function atLeast(value: number, minimum: number, path: string): number {
  if (!Number.isSafeInteger(value) || value < minimum) {
    throw new BadUserInputError(path, `${path} must be an integer of at least ${minimum}.`);
  }
  return value;
}
