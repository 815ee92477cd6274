/**
 * The RFC 9535 JSONPath compliance suite (test/fixtures/jsonpath-cts, vendored unchanged, BSD-2),
 * graded through recallToolResult's answers. A singular query (names and indexes only) answers with
 * its value (a string leaf as plain text) or a not-found text; any other query with its node list
 * as JSON.
 */
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { join } from 'node:path';
import { parseRfc9535Query } from '../../../../src/lookup/json-path/rfc9535-query';

export interface CtsCase {
  name: string;
  selector: string;
  document?: unknown;
  result?: unknown[];
  results?: unknown[][];
  invalid_selector?: boolean;
  tags?: string[];
}

const CTS_FILE = join(__dirname, '../../../fixtures/jsonpath-cts/cts.json');

export function loadCts(): CtsCase[] {
  return (JSON.parse(readFileSync(CTS_FILE, 'utf8')) as { tests: CtsCase[] }).tests;
}

/** The suite's section of a case: the part of its name before the first comma ("filter", "functions", …). */
export function sectionOf(test: CtsCase): string {
  return test.name.split(',')[0].trim();
}

/** Null when the answer is what the suite expects; else why not. */
export function ctsFailure(test: CtsCase, answer: string): string | null {
  if (test.invalid_selector)
    return answer.startsWith('[tool_memory bad json_path: ') ? null : `expected a bad json_path answer, got ${preview(answer)}`;
  const expected = test.results ?? [test.result ?? []];
  const readings = answerReadings(test.selector, answer);
  if (readings.length === 0) return `unexpected answer ${preview(answer)}`;
  const matches = readings.some((nodes) => expected.some((alternative) => isDeepStrictEqual(alternative, nodes)));
  return matches ? null : `got ${preview(answer)}`;
}

/** The node lists an answer can mean: a singular query's value may be a string that reads as JSON. */
function answerReadings(selector: string, answer: string): unknown[][] {
  const parsed = parseRfc9535Query(selector);
  const singular = !('problem' in parsed) && parsed.singular;
  if (answer.startsWith('[tool_memory not found: json_path ')) return singular ? [[]] : [];
  if (answer.startsWith('[tool_memory ')) return [];
  let value: unknown;
  try {
    value = JSON.parse(answer);
  } catch {
    return singular ? [[answer]] : [];
  }
  if (singular) return [[value], [answer]];
  return Array.isArray(value) ? [value] : [];
}

function preview(text: string): string {
  return JSON.stringify(text.length > 160 ? `${text.slice(0, 160)}…` : text);
}
