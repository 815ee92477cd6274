import { EVAL_CASES, EvalCase, findCase } from './cases';
import { Grader } from './graders';
import { RecordedTranscript } from './transcript';

/**
 * True when the grader reaches every recorded transcript's expected verdict. The recorded
 * set of each eval holds failing answers, so a grader that passes everything (or fails
 * everything) cannot agree: this is how the graders' own tests prove they have teeth.
 */
export function verdictsAgree(
  grader: Grader,
  transcripts: readonly RecordedTranscript[],
  cases: readonly EvalCase[] = EVAL_CASES,
): boolean {
  if (transcripts.length === 0) return false;
  return transcripts.every((transcript) => {
    const testCase = findCase(transcript.caseId, cases);
    if (testCase === undefined) return false;
    return (grader(testCase, transcript).pass ? 'pass' : 'fail') === transcript.expected;
  });
}
