import { AppError, BadUserInputError } from '../common/errors/app-error';
import { UUID_PATTERN } from '../common/uuid-pattern';
import type { ToolResultInput } from '../tool-results';
import { deterministicMessageId, INPUT_ID_SUFFIX } from './compaction';
import { ALL_TOOLS, type CompactionOptions, type Replacement, type ToolCompactionSettings } from './compaction.types';
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
  triggerTokens?: number | null;
  targetTokens?: number | null;
  clearToolInputs?: readonly string[] | null;
}

/** What a team's policy says about one tool (R-LG-4); the compaction-policies module stores them. */
export interface ToolPolicy {
  neverCompact: boolean;
  keepLastN: number | null;
  sizeThreshold: number | null;
  clearInputs: boolean;
}

/** Which per-tool settings the request gave itself: those a team policy may not change. */
interface RequestSaid {
  sizeThreshold: boolean;
  keepLastN: boolean;
  excludeTools: boolean;
  clearToolInputs: boolean;
}

export interface CompactMessagesRequest {
  spaceId: string;
  conversationId: string;
  history: History;
  /** The request's settings with the defaults filled in, before any team policy. */
  options: CompactionOptions;
  said: RequestSaid;
  clearAtLeastTokens: number;
  /** Compact only above this many tokens; null: always. */
  triggerTokens: number | null;
  /** Replace only as many results as reach this many tokens; null: every eligible one. */
  targetTokens: number | null;
}

/** Checks the whole input before any SQL runs (R-OP-5), naming the offending field. */
export function checkCompactMessagesInput(input: CompactMessagesArgs, field = 'input'): CompactMessagesRequest {
  const spaceId = uuid(input.spaceId, `${field}.spaceId`);
  const conversationId = uuid(input.conversationId, `${field}.conversationId`);
  const sizeThreshold = atLeast(input.sizeThreshold ?? COMPACTION_DEFAULTS.sizeThreshold, 1, `${field}.sizeThreshold`);
  const keepLastN = atLeast(input.keepLastN ?? COMPACTION_DEFAULTS.keepLastN, 0, `${field}.keepLastN`);
  const clearAtLeastTokens = atLeast(input.clearAtLeastTokens ?? COMPACTION_DEFAULTS.clearAtLeastTokens, 0, `${field}.clearAtLeastTokens`);
  const targetTokens = input.targetTokens == null ? null : atLeast(input.targetTokens, 0, `${field}.targetTokens`);
  // A target alone compacts when the history is over it.
  const triggerTokens = input.triggerTokens == null ? targetTokens : atLeast(input.triggerTokens, 0, `${field}.triggerTokens`);
  if (targetTokens !== null && triggerTokens !== null && targetTokens > triggerTokens) {
    throw new BadUserInputError(
      `${field}.targetTokens`,
      `${field}.targetTokens (${targetTokens}) must not exceed ${field}.triggerTokens (${triggerTokens}): compaction starts above the trigger and stops at the target.`,
    );
  }
  const excludeTools = toolNames(input.excludeTools ?? [], `${field}.excludeTools`, false);
  const clearToolInputs = toolNames(input.clearToolInputs ?? [], `${field}.clearToolInputs`, true);
  const history = readHistory(input.messages, input.messageFormat ?? MessageFormat.AUTO);
  if (isProblem(history)) throw historyError(history, field);
  return {
    spaceId,
    conversationId,
    history,
    options: { sizeThreshold, keepLastN, excludeTools, clearToolInputs },
    said: {
      sizeThreshold: input.sizeThreshold != null,
      keepLastN: input.keepLastN != null,
      excludeTools: input.excludeTools != null,
      clearToolInputs: input.clearToolInputs != null,
    },
    clearAtLeastTokens,
    triggerTokens,
    targetTokens,
  };
}

/**
 * The request's settings with the team's per-tool policies (R-LG-4) where the request said
 * nothing: a request that names a setting (`sizeThreshold`, `keepLastN`, `excludeTools`,
 * `clearToolInputs`, even as an empty list) gives it for every tool.
 */
export function withTeamPolicies(request: CompactMessagesRequest, policies: ReadonlyMap<string, ToolPolicy>): CompactionOptions {
  const { said } = request;
  const toolSettings = new Map<string, ToolCompactionSettings>();
  for (const [toolName, policy] of policies) {
    const settings: ToolCompactionSettings = {};
    if (!said.excludeTools && policy.neverCompact) settings.exclude = true;
    if (!said.sizeThreshold && policy.sizeThreshold !== null) settings.sizeThreshold = policy.sizeThreshold;
    if (!said.keepLastN && policy.keepLastN !== null) settings.keepLastN = policy.keepLastN;
    if (!said.clearToolInputs && policy.clearInputs) settings.clearInputs = true;
    if (Object.keys(settings).length > 0) toolSettings.set(toolName, settings);
  }
  return toolSettings.size === 0 ? request.options : { ...request.options, toolSettings };
}

/** Whether any setting was left to the team's policies, so they are worth reading. */
export function policiesMayApply(request: CompactMessagesRequest): boolean {
  return Object.values(request.said).some((said) => !said);
}

function toolNames(names: readonly string[], path: string, allowAll: boolean): readonly string[] {
  if (names.length > MAX_EXCLUDE_TOOLS) throw new BadUserInputError(path, `${path} may name at most ${MAX_EXCLUDE_TOOLS} tools.`);
  names.forEach((name, index) => {
    if (name.length === 0 || name.length > MAX_TOOL_NAME_CHARS) {
      throw new BadUserInputError(
        `${path}.${index}`,
        `${path}.${index} must be 1 to ${MAX_TOOL_NAME_CHARS} characters${allowAll ? ` (or "${ALL_TOOLS}" for every tool)` : ''}.`,
      );
    }
  });
  return names;
}

function historyError(found: HistoryProblem, field: string): BadUserInputError {
  return new BadUserInputError(`${field}.${found.path}`, `${field}.${found.error}.`);
}

/** The ids a candidate is stored under must fit the snapshot columns; refused before any SQL. */
export function checkCandidates(candidates: readonly Replacement[], field = 'input'): void {
  for (const candidate of candidates) {
    const paths = pathsOf(candidate, field);
    if (candidate.toolUseId.length === 0 || candidate.toolUseId.length > MAX_TOOL_USE_ID_CHARS) {
      const limit = candidate.kind === 'input' ? MAX_TOOL_USE_ID_CHARS - INPUT_ID_SUFFIX.length : MAX_TOOL_USE_ID_CHARS;
      throw new BadUserInputError(paths.toolUseId, `${paths.toolUseId} must be 1 to ${limit} characters.`);
    }
    if (candidate.toolName.length === 0 || candidate.toolName.length > MAX_TOOL_NAME_CHARS || /\s/.test(candidate.toolName)) {
      throw new BadUserInputError(paths.toolName, `${paths.toolName} must be 1 to ${MAX_TOOL_NAME_CHARS} characters without white space.`);
    }
  }
}

/** Where each stored field of a candidate came from in the client's list. */
function pathsOf(
  candidate: Replacement,
  field: string,
): Record<'spaceId' | 'conversationId' | 'messageId' | 'toolInput' | 'toolName' | 'toolUseId' | 'toolOutput', string> {
  const common = { spaceId: `${field}.spaceId`, conversationId: `${field}.conversationId` };
  if (candidate.kind === 'input') {
    const { call } = candidate;
    return {
      ...common,
      messageId: `${field}.messages.${call.entryIndex}.id`,
      toolInput: `${field}.${call.inputPath}`,
      toolName: `${field}.${call.namePath}`,
      toolUseId: `${field}.${call.idPath}`,
      toolOutput: `${field}.${call.inputPath}`,
    };
  }
  const { site } = candidate;
  return {
    ...common,
    messageId: `${field}.messages.${site.call?.entryIndex ?? site.entryIndex}.id`,
    toolInput: `${field}.${site.call?.inputPath ?? site.idPath}`,
    toolName: `${field}.${site.call?.namePath ?? site.idPath}`,
    toolUseId: `${field}.${site.idPath}`,
    toolOutput: `${field}.${site.outputPath}`,
  };
}

/**
 * What the write path stores for each candidate: the payload (text, or the JSON object a Gemini
 * or AI SDK result gave), attached to the entry holding the call — its own id when that is a
 * UUID, else one derived from the conversation and the call id, so every call and replica picks
 * the same message.
 */
export function recordItemsOf(request: CompactMessagesRequest, candidates: readonly Replacement[]): ToolResultInput[] {
  return candidates.map((candidate) => ({
    spaceId: request.spaceId,
    conversationId: request.conversationId,
    messageId:
      candidate.assistantMessageId !== null && UUID_PATTERN.test(candidate.assistantMessageId)
        ? candidate.assistantMessageId.toLowerCase()
        : deterministicMessageId(request.conversationId, candidate.toolUseId),
    toolUseId: candidate.toolUseId,
    toolName: candidate.toolName,
    // Arguments are the payload of their own snapshot; stored once.
    toolInput: candidate.kind === 'result' ? candidate.toolInput : {},
    toolOutput: candidate.payload,
  }));
}

/**
 * The write path names fields of its own batch (`batch.3.messageId`); the client sent a message
 * list, so such an error is re-pointed at the entry, call or result it came from.
 */
export function relocateRecordError(error: unknown, batchField: string, batch: readonly Replacement[], field = 'input'): unknown {
  if (!(error instanceof AppError) || typeof error.details.field !== 'string') return error;
  const match = new RegExp(`^${batchField}\\.(\\d+)\\.(\\w+)$`).exec(error.details.field);
  const candidate = match ? batch[Number(match[1])] : undefined;
  if (!match || !candidate) return error;
  const paths: Record<string, string> = pathsOf(candidate, field);
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
