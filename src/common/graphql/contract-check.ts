import { findBreakingChanges, type GraphQLSchema } from 'graphql';

export interface ContractCheckResult {
  /** Breaking changes not covered by a pending entry. */
  breaking: string[];
  /** Pending entries that no longer match any breaking change. */
  stalePending: string[];
  pendingCount: number;
}

/** Lines of the pending file: one schema coordinate each (`Query.recallBlock`, `RecallBlock`), `#` comments. */
export function parsePending(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter(Boolean);
}

/** The schema coordinate a breaking-change description starts with, e.g. `Query.recallBlock`. */
function coordinateOf(description: string): string {
  const standardScalar = /^Standard scalar (\w+)/.exec(description);
  if (standardScalar) return standardScalar[1];
  return description.split(/\s/)[0].replace(/\.$/, '');
}

function covers(entry: string, coordinate: string): boolean {
  return coordinate === entry || coordinate.startsWith(`${entry}.`);
}

export function checkContract(contract: GraphQLSchema, schema: GraphQLSchema, pendingText: string): ContractCheckResult {
  const pending = parsePending(pendingText);
  const changes = findBreakingChanges(contract, schema).map((c) => c.description);
  const breaking = changes.filter((d) => !pending.some((entry) => covers(entry, coordinateOf(d))));
  const stalePending = pending.filter((entry) => !changes.some((d) => covers(entry, coordinateOf(d))));
  return { breaking, stalePending, pendingCount: pending.length };
}

/**
 * What contract:check does without its contract file: it cannot run, and says so. By default that
 * passes (a clone on its own has no contract beside it); with `--require` (CI passes it, since there
 * the contract is checked out beside the clone) it fails. The message is the line for stderr: the
 * check did not run, where it looked, how to name the file.
 */
export function missingContract(contractFile: string, required: boolean): { message: string; exitCode: 0 | 1 } {
  const message =
    `contract:check DID NOT RUN: no contract file at ${contractFile}; ` +
    'name one with `npm run contract:check -- --contract path/to/contract.graphql`' +
    (required ? ' (--require: failing)' : ' (exiting 0; CI passes --require and fails here)');
  return { message, exitCode: required ? 1 : 0 };
}
