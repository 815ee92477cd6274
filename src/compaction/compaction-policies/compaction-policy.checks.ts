import { BadUserInputError } from '../../common/errors/app-error';
import { elide } from '../../common/text/text-bounds';
import { toolNameProblem } from '../../tool-results';

/** A team holds policies for at most this many tools (as summary rules). */
export const MAX_POLICIES_PER_TEAM = 100;
export const MAX_POLICY_KEEP_LAST_N = 1000;
export const MAX_POLICY_SIZE_THRESHOLD = 10_000_000;

const AND = new Intl.ListFormat('en', { type: 'conjunction' });

/** The mutation's argument the fields of a refusal are named under. */
const ROOT = 'policy';

/**
 * A team's compaction settings for one tool (R-LG-4), each applied where a `compactMessages`
 * request says nothing: request value ?? this policy ?? the default. Null: the policy says nothing.
 */
export interface ToolCompactionPolicy {
  toolName: string;
  /** The tool's results (and inputs) are never compacted. */
  neverCompact: boolean;
  /** Its own `keepLastN`: this many of its latest results stay as they are. */
  keepLastN: number | null;
  /** Its own threshold: its results longer than this many characters are compacted. */
  sizeThreshold: number | null;
  /** Its call arguments over the threshold are recorded and replaced by a stub. */
  clearInputs: boolean;
}

/** What an admin sends: every setting optional, absent or null alike. */
export interface CompactionPolicySettings {
  neverCompact?: boolean | null;
  keepLastN?: number | null;
  sizeThreshold?: number | null;
  clearInputs?: boolean | null;
}

/** The tool name a policy is for, as recordToolResults takes it; BAD_USER_INPUT on `toolName` otherwise. */
export function checkPolicyToolName(toolName: string): void {
  const problem = toolNameProblem(toolName);
  if (problem !== null) throw new BadUserInputError('toolName', problem);
}

/**
 * The policy to store for `toolName`, checked whole before any SQL: BAD_USER_INPUT naming the field
 * and what to change. An unset flag is stored as false.
 */
export function checkCompactionPolicy(toolName: string, settings: CompactionPolicySettings): ToolCompactionPolicy {
  checkPolicyToolName(toolName);
  const { neverCompact, keepLastN, sizeThreshold, clearInputs } = settings;
  if (neverCompact == null && keepLastN == null && sizeThreshold == null && clearInputs == null) {
    throw new BadUserInputError(ROOT, `${ROOT} sets nothing; give at least one of neverCompact, keepLastN, sizeThreshold, clearInputs.`);
  }
  checkWhole('keepLastN', keepLastN, 0, MAX_POLICY_KEEP_LAST_N);
  checkWhole('sizeThreshold', sizeThreshold, 1, MAX_POLICY_SIZE_THRESHOLD);
  if (neverCompact === true) {
    // A tool that is never compacted has nothing to keep, no threshold and no inputs to clear.
    const contradicting = [
      keepLastN != null ? 'keepLastN' : null,
      sizeThreshold != null ? 'sizeThreshold' : null,
      clearInputs === true ? 'clearInputs' : null,
    ].filter((field) => field !== null);
    if (contradicting.length > 0) {
      const [first] = contradicting;
      const one = contradicting.length === 1;
      throw new BadUserInputError(
        `${ROOT}.${first}`,
        `${ROOT}.neverCompact is true: every result and input of "${elide(toolName, 40)}" stays as it is, so ` +
          `${AND.format(contradicting)} would never apply; remove ${one ? 'it' : 'them'}, or set neverCompact to false.`,
      );
    }
  }
  return {
    toolName,
    neverCompact: neverCompact ?? false,
    keepLastN: keepLastN ?? null,
    sizeThreshold: sizeThreshold ?? null,
    clearInputs: clearInputs ?? false,
  };
}

function checkWhole(field: string, value: number | null | undefined, min: number, max: number): void {
  if (value == null) return;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new BadUserInputError(
      `${ROOT}.${field}`,
      `${ROOT}.${field} must be a whole number from ${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')}; got ${String(value)}.`,
    );
  }
}

/** The refusal of a new tool's policy when the team is at its limit. */
export function policyLimitError(toolName: string): BadUserInputError {
  return new BadUserInputError(
    'toolName',
    `The team already has compaction policies for ${MAX_POLICIES_PER_TEAM} tools, the limit; delete one (deleteToolCompactionPolicy) ` +
      `before adding a policy for "${elide(toolName, 40)}".`,
  );
}
