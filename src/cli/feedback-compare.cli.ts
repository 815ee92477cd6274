// Compares a baseline and a candidate run over the same evaluation cases, paired by caseId (R-FB-10):
//   npm run feedback:compare -- baseline.jsonl candidate.jsonl [--json]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { comparePairedRuns, formatFixed, type PairedComparison, type RunResult } from '../feedback';

const HELP = `Usage: npm run feedback:compare -- <baseline.jsonl> <candidate.jsonl> [--json]

Compares two runs over the same evaluation cases (those of npm run feedback:export), paired
by caseId.

Input: each file is JSON Lines, one run result per case:
  {"caseId": "fb_01J...", "score": 0.75}
  caseId  the case's caseId (string)
  score   a finite number, higher is better (any scale, the same in both files)
Other fields are ignored; blank lines are skipped; a caseId repeated within a file is an error.
Cases present in only one file are listed and left out of the comparison.

Output, over the paired cases:
  wins    candidate score > baseline score
  losses  candidate score < baseline score
  ties    equal scores
  mean difference  mean of (candidate - baseline) over all paired cases (ties included)
  sign test p      exact two-sided sign test over the non-tied pairs (binomial, p = 1/2):
                   p = min(1, 2 * sum_{k <= min(wins, losses)} C(n, k) / 2^n), n = wins + losses;
                   1 when every pair ties
  --json           print the result as one JSON object instead of text
  --help           this text
`;

class UsageError extends Error {}

/** Reads a run file: JSON Lines of `{ caseId, score }`. */
function readRun(file: string): RunResult[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const results: RunResult[] = [];
  text.split(/\r?\n/u).forEach((line, index) => {
    if (line.trim() === '') return;
    const where = `${file}:${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new UsageError(`${where}: not a JSON object`);
    }
    const { caseId, score } = (value ?? {}) as { caseId?: unknown; score?: unknown };
    if (typeof caseId !== 'string' || caseId === '') throw new UsageError(`${where}: "caseId" must be a non-empty string`);
    if (typeof score !== 'number' || !Number.isFinite(score)) throw new UsageError(`${where}: "score" must be a finite number`);
    results.push({ caseId, score });
  });
  return results;
}

const SHOWN_IDS = 20;

function listIds(ids: readonly string[]): string {
  if (ids.length === 0) return '';
  const shown = ids.slice(0, SHOWN_IDS).join(', ');
  return ids.length > SHOWN_IDS ? `: ${shown}, … (${ids.length - SHOWN_IDS} more)` : `: ${shown}`;
}

function report(result: PairedComparison, baseline: string, candidate: string): string {
  return [
    `baseline:  ${baseline}`,
    `candidate: ${candidate}`,
    `paired cases: ${result.pairs}`,
    `only in baseline (skipped): ${result.onlyInBaseline.length}${listIds(result.onlyInBaseline)}`,
    `only in candidate (skipped): ${result.onlyInCandidate.length}${listIds(result.onlyInCandidate)}`,
    `wins (candidate > baseline): ${result.wins}`,
    `losses (candidate < baseline): ${result.losses}`,
    `ties: ${result.ties}`,
    `mean difference (candidate - baseline): ${formatFixed(result.meanDifference)}`,
    `sign test (exact, two-sided, n = ${result.signTestN} non-tied pairs): p = ${formatFixed(result.pValue)}`,
    '',
  ].join('\n');
}

function main(): number {
  let positionals: string[];
  let json = false;
  try {
    const parsed = parseArgs({
      args: process.argv.slice(2),
      options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
    if (parsed.values.help) {
      process.stdout.write(HELP);
      return 0;
    }
    json = parsed.values.json ?? false;
    positionals = parsed.positionals;
    if (positionals.length !== 2) throw new UsageError('give exactly two files: the baseline run and the candidate run');
  } catch (error) {
    process.stderr.write(`feedback:compare: ${error instanceof Error ? error.message : String(error)}\n\n${HELP}`);
    return 1;
  }
  const [baselineFile, candidateFile] = positionals;
  try {
    const result = comparePairedRuns(readRun(baselineFile), readRun(candidateFile));
    process.stdout.write(json ? `${JSON.stringify(result)}\n` : report(result, baselineFile, candidateFile));
    return 0;
  } catch (error) {
    process.stderr.write(`feedback:compare: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

process.exitCode = main();
