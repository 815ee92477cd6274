// Fails when the generated schema breaks the API contract (graphql-js findBreakingChanges), except
// for coordinates listed in contract-pending.txt: operations of later issues, listed explicitly, a
// list that shrinks as they land.
//   npm run contract:check [-- --contract path/to/contract.graphql] [--require]
// The contract is vendored in contract/contract.graphql (the default path), so a clone checks itself
// with nothing beside it; --contract checks against another copy (a newer one, before vendoring it).
// Without the named file the check does not run: it says so on stderr and exits 0, or 1 with
// --require, which .ci/run passes in CI (missingContract).
import 'reflect-metadata';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildSchema } from 'graphql';
import { buildApiSchema } from '../api-schema';
import { checkContract, missingContract } from '../common/graphql/contract-check';

const root = resolve(__dirname, '..', '..');
const { values } = parseArgs({ options: { contract: { type: 'string' }, require: { type: 'boolean', default: false } } });
const contractFile = values.contract ?? resolve(root, 'contract', 'contract.graphql');

async function main(): Promise<number> {
  if (!existsSync(contractFile)) {
    const missing = missingContract(contractFile, values.require);
    process.stderr.write(`${missing.message}\n`);
    return missing.exitCode;
  }
  const pending = readFileSync(resolve(root, 'contract-pending.txt'), 'utf8');
  const result = checkContract(buildSchema(readFileSync(contractFile, 'utf8')), await buildApiSchema(), pending);
  for (const line of result.breaking) process.stdout.write(`BREAKING ${line}\n`);
  for (const line of result.stalePending) process.stdout.write(`STALE pending entry (implemented now, remove it): ${line}\n`);
  process.stdout.write(
    `contract:check ${result.breaking.length} breaking, ${result.pendingCount} pending, ${result.stalePending.length} stale\n`,
  );
  return result.breaking.length + result.stalePending.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  },
);
