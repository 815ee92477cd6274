import { readJsonText } from '../../common/text/json-text';
import { countLines } from '../../common/text/text-lines';
import { summarizeOutput } from '../summarizer/summarize-tool-result';
import type { SummaryRule } from '../summarizer/summary-rule.types';
import { headPreview } from './head-preview';
import { schemaHint } from './schema-hint';

/**
 * The parts of a handle read from the payload itself (R-LG-1, R-RC-3): each may cost up to a pass
 * over the payload, so a large one's are read on a worker thread (HandleFieldsPool).
 */
export interface HandleFields {
  summaryOneliner: string;
  schemaHint: string | null;
  headPreview: string | null;
  /** The line count of a text output of more than one line (the stub names it); else null. */
  textLines: number | null;
  /** The tool's rules passed their row budget: the summary is the generic one. */
  summaryOverBudget: boolean;
}

/** A payload as the fields are read from it: the text the model saw, and whether the output was that text (a string, not JSON). */
export interface PayloadText {
  text: string;
  isText: boolean;
}

/** A payload and the rules its summary may use (`applicableRules`), as a worker thread receives it. */
export interface HandleFieldsTask extends PayloadText {
  rules: readonly SummaryRule[];
}

/** The fields of a payload whose output is `output` (readJsonText's reading of it), by the tool's rules that apply to its input. */
export function handleFields(output: unknown, payload: PayloadText, rules: readonly SummaryRule[]): HandleFields {
  const summary = summarizeOutput(rules, output);
  return {
    summaryOneliner: summary.text,
    schemaHint: schemaHint(output),
    headPreview: headPreview(payload.text),
    textLines: payload.isText ? multipleLines(countLines(payload.text)) : null,
    summaryOverBudget: summary.overBudget,
  };
}

/** `handleFields` from the payload text alone, as a worker thread has it: the output parsed back from its JSON. */
export function handleFieldsOfText(task: HandleFieldsTask): HandleFields {
  const output: unknown = task.isText ? readJsonText(task.text) : JSON.parse(task.text);
  return handleFields(output, task, task.rules);
}

/** A line count worth naming in the stub: more than one line. */
function multipleLines(lines: number): number | null {
  return lines > 1 ? lines : null;
}
