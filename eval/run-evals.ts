import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVAL_CASES, EVAL_IDS, EVAL_TITLES, EvalCase, EvalId } from './cases';
import { GradeResult, gradeTranscript } from './graders';
import { adapterFromEnv, FetchLike, ModelAdapter } from './model-adapter';
import { RecordedTranscript, Transcript, Verdict } from './transcript';

/*
 * `npm run eval` (R-EV-1): every case through the model adapter, every answer graded by its
 * eval's deterministic grader. With recorded transcripts the run checks the graders (each
 * recorded verdict must be reached; the set holds failing answers on purpose); with the live
 * API it is the release gate (every case must pass).
 */

export interface GradedRun {
  testCase: EvalCase;
  transcript: Transcript | null;
  result: GradeResult;
  /** Set for a recorded transcript: the verdict the grader must reach. */
  expected: Verdict | null;
  label: string;
}

export interface EvalTally {
  eval: EvalId;
  title: string;
  passed: number;
  total: number;
}

export interface EvalRunReport {
  runs: GradedRun[];
  tallies: EvalTally[];
  /** Recorded transcripts whose grade matched their expected verdict, of those checked. */
  agreement: { agreed: number; checked: number };
  errors: number;
  exitCode: number;
}

export interface EvalRunOptions {
  adapter: ModelAdapter;
  cases?: readonly EvalCase[];
  log?: (line: string) => void;
  /** Where to write each live transcript as JSON, to review and ship as a recording. */
  transcriptOut?: string;
}

export async function runEvals(options: EvalRunOptions): Promise<EvalRunReport> {
  const { adapter, cases = EVAL_CASES, log = (line: string) => console.log(line) } = options;
  log(`Release evals (R-EV-1): ${adapter.description}`);
  const runs: GradedRun[] = [];
  for (const evalId of EVAL_IDS) {
    const evalCases = cases.filter((c) => c.eval === evalId);
    if (evalCases.length === 0) continue;
    log('');
    log(EVAL_TITLES[evalId]);
    for (const testCase of evalCases) {
      for (const run of await runCase(adapter, testCase, options.transcriptOut)) {
        runs.push(run);
        log(describeRun(run));
      }
    }
  }

  const tallies = EVAL_IDS.map((evalId): EvalTally => {
    const of = runs.filter((run) => run.testCase.eval === evalId);
    return { eval: evalId, title: EVAL_TITLES[evalId], passed: of.filter((run) => run.result.pass).length, total: of.length };
  }).filter((tally) => tally.total > 0);
  const checked = runs.filter((run) => run.expected !== null);
  const agreed = checked.filter((run) => verdictOf(run.result) === run.expected).length;
  const errors = runs.filter((run) => run.transcript === null).length;
  const recordedMode = checked.length > 0;
  const passed = runs.filter((run) => run.result.pass).length;
  const exitCode = errors > 0 || (recordedMode ? agreed !== checked.length : passed !== runs.length) ? 1 : 0;

  log('');
  for (const tally of tallies) log(`${tally.title}: ${tally.passed}/${tally.total} passed`);
  if (recordedMode) log(`expected-vs-actual verdicts agree: ${agreed}/${checked.length}`);
  const outcome = recordedMode
    ? exitCode === 0
      ? 'graders agree with every recorded verdict'
      : 'GRADER DISAGREEMENT'
    : exitCode === 0
      ? 'release gate passed'
      : 'RELEASE GATE FAILED';
  const errorNote = errors > 0 ? `; ${errors} case(s) errored` : '';
  log(`summary: ${passed}/${runs.length} answers passed across ${tallies.length} evals${errorNote} — ${outcome}`);
  return { runs, tallies, agreement: { agreed, checked: checked.length }, errors, exitCode };
}

async function runCase(adapter: ModelAdapter, testCase: EvalCase, transcriptOut?: string): Promise<GradedRun[]> {
  let transcripts: Transcript[];
  try {
    transcripts = adapter.respondAll ? await adapter.respondAll(testCase) : [await adapter.respond(testCase)];
  } catch (error) {
    const reason = `adapter error: ${error instanceof Error ? error.message : String(error)}`;
    return [{ testCase, transcript: null, result: { pass: false, reason }, expected: null, label: 'error' }];
  }
  return transcripts.map((transcript) => {
    if (transcriptOut !== undefined && transcript.source !== 'recorded') saveTranscript(transcriptOut, transcript);
    const recorded = transcript.source === 'recorded' ? (transcript as RecordedTranscript) : null;
    return {
      testCase,
      transcript,
      result: gradeTranscript(testCase, transcript),
      expected: recorded?.expected ?? null,
      label: recorded?.label ?? transcript.model,
    };
  });
}

function describeRun(run: GradedRun): string {
  const verdict = verdictOf(run.result).toUpperCase();
  const expectation =
    run.expected === null
      ? ''
      : verdictOf(run.result) === run.expected
        ? ` (expected ${run.expected})`
        : ` (MISMATCH: expected ${run.expected})`;
  return `  ${verdict}  ${run.testCase.id} [${run.label}]${expectation} — ${run.result.reason ?? ''}`;
}

function verdictOf(result: GradeResult): Verdict {
  return result.pass ? 'pass' : 'fail';
}

function saveTranscript(dir: string, transcript: Transcript): void {
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  writeFileSync(join(dir, `${transcript.caseId}--${stamp}.json`), `${JSON.stringify(transcript, null, 2)}\n`);
}

/** The command: picks the adapter from the environment, runs, returns the exit code. */
export async function main(
  env: NodeJS.ProcessEnv = process.env,
  log: (line: string) => void = (line) => console.log(line),
  fetchImpl?: FetchLike,
): Promise<number> {
  const adapter = adapterFromEnv(env, fetchImpl);
  const transcriptOut = env.EVAL_TRANSCRIPT_OUT?.trim() || undefined;
  const report = await runEvals({ adapter, log, transcriptOut });
  return report.exitCode;
}

if (require.main === module) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exitCode = 1;
    },
  );
}
