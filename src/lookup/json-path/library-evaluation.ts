import type { JSONPathQuery, JSONValue } from 'json-p3';
import { readJsonText } from '../../common/text/json-text';
import { runWithTimeout } from '../../common/workers/timed-run';
import { linearTimeEnvironment } from './i-regexp';

interface LibraryLimits {
  /** Most milliseconds one evaluation may run (a filter's regular expression can backtrack for ages). */
  timeoutMs: number;
  /** Most nodes an answer may list. */
  maxNodes: number;
}

type LibraryResult = { nodes: unknown[] } | { tooMany: true } | { timedOut: true };

/**
 * The nodes of an RFC 9535 query (json-p3, which passes the compliance suite) in `document`,
 * stopped after `timeoutMs`, or as soon as there are more than `maxNodes`.
 */
function evaluateWithLibrary(query: JSONPathQuery, document: JSONValue, limits: LibraryLimits): LibraryResult {
  const run = runWithTimeout(() => {
    const nodes: unknown[] = [];
    for (const node of query.lazyQuery(document)) {
      if (nodes.length === limits.maxNodes) return { tooMany: true } as const;
      nodes.push(node.value);
    }
    return { nodes };
  }, limits.timeoutMs);
  return 'timedOut' in run ? run : run.value;
}

/** One library evaluation as a worker thread receives it: plain data, the payload still JSON text. */
export interface LibraryTask {
  /** A json_path the main thread has already parsed (and so checked). */
  pathText: string;
  /** The payload as PostgreSQL's JSON text; a text output holding JSON is read as that JSON. */
  documentText: string;
  /** Answer the node list as a JSON array; else the one value, as the dotted form answers. */
  list: boolean;
  timeoutMs: number;
  maxNodes: number;
}

export type LibraryAnswer = { text: string } | { notFound: true } | { tooMany: true } | { timedOut: true };

/** Parsed once per thread: the main thread's compiled query cannot cross to a worker. */
const environment = linearTimeEnvironment();

/**
 * The answer text of a library evaluation, with everything CPU-heavy in it (the payload's
 * JSON.parse, the evaluation, the answer's JSON.stringify), so a worker thread can run it whole.
 */
export function answerLibraryTask(task: LibraryTask): LibraryAnswer {
  const document = readJsonText(JSON.parse(task.documentText)) as JSONValue;
  const result = evaluateWithLibrary(environment.compile(task.pathText), document, task);
  if (!('nodes' in result)) return result;
  if (!task.list && result.nodes.length === 0) return { notFound: true };
  return { text: task.list ? JSON.stringify(result.nodes) : leafText(result.nodes[0]) };
}

/** A string leaf as the plain string, anything else as compact JSON: as PostgreSQL's answers are. */
function leafText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
