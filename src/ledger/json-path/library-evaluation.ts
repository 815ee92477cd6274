import { createContext, runInContext } from 'node:vm';
import type { JSONPathQuery, JSONValue } from 'json-p3';

export interface LibraryLimits {
  /** Most milliseconds one evaluation may run (a filter's regular expression can backtrack for ages). */
  timeoutMs: number;
  /** Most nodes an answer may list. */
  maxNodes: number;
}

export type LibraryResult = { nodes: unknown[] } | { tooMany: true } | { timedOut: true };

// One context for every evaluation: the timeout is what matters, not isolation. Node's watchdog
// stops whatever JavaScript runs inside runInContext, the library's code included.
const evaluation: { run: () => void } = { run: () => undefined };
const context = createContext({ evaluation });

/**
 * The nodes of an RFC 9535 query (json-p3, which passes the compliance suite) in `document`,
 * stopped after `timeoutMs`, or as soon as there are more than `maxNodes`.
 */
export function evaluateWithLibrary(query: JSONPathQuery, document: JSONValue, limits: LibraryLimits): LibraryResult {
  const nodes: unknown[] = [];
  let tooMany = false;
  evaluation.run = () => {
    for (const node of query.lazyQuery(document)) {
      if (nodes.length === limits.maxNodes) {
        tooMany = true;
        return;
      }
      nodes.push(node.value);
    }
  };
  try {
    runInContext('evaluation.run()', context, { timeout: limits.timeoutMs });
    return tooMany ? { tooMany } : { nodes };
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return { timedOut: true };
    throw error;
  } finally {
    evaluation.run = () => undefined;
  }
}
