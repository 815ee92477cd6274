import { createHash } from 'node:crypto';
import { seededRandom } from '../../test/support/seeded-random';
import {
  filePath,
  grepOutput,
  logUniform,
  numberedLines,
  pageText,
  pick,
  prose,
  type Random,
  searchResults,
  sourceText,
  testOutput,
  wordIn,
} from './trace-content';

/**
 * The cost eval's agent trace (R-LG-3, docs/compaction-cost.md): a coding and research agent
 * working through six tasks, seeded and pure. Each step is one model call, except a `recall`
 * step, which is the model's need to see an earlier result again: a call of `recall_tool_result`
 * when that result is a stub in what the model was sent, nothing when it is still there whole.
 */

export const COST_TRACE_SEED = 20250926;

export type TraceStep =
  | { kind: 'user'; text: string }
  /** The model answers in text: a task is done. */
  | { kind: 'say'; text: string }
  /** The model calls a tool (a short note before the call); the result comes back, sometimes with a word from the user. */
  | {
      kind: 'tool';
      id: string;
      name: string;
      note: string;
      input: Record<string, unknown>;
      result: string;
      isError: boolean;
      userNote: string | null;
    }
  /** The model needs the result of call `target` again: FULL, or the matches of `query` for a large one. */
  | { kind: 'recall'; id: string; note: string; target: string; query: string | null };

const TASKS = [
  'The export job times out on large accounts. Find out why and fix it, with a test.',
  'Add retry with backoff to the upstream client; read how the provider documents its rate limits first.',
  'Write a migration guide for the v3 config format into docs/migrating-to-v3.md.',
  'The nightly build fails on the codec tests. Find the cause and fix it.',
  'Replace the hand-written CSV parser with the streaming one and keep the behaviour.',
  'Review the history module for dead code, remove it, and write up what you removed.',
];

/** Weights of what the agent does next, mid-task. */
const ACTIONS: readonly [Action, number][] = [
  ['read_file', 26],
  ['grep', 13],
  ['shell', 16],
  ['fetch_url', 8],
  ['search', 7],
  ['edit_file', 12],
  ['write_file', 5],
  ['reread', 5],
  ['recall', 10],
];
type Action = 'read_file' | 'grep' | 'shell' | 'fetch_url' | 'search' | 'edit_file' | 'write_file' | 'reread' | 'recall';

/** Results this large, and older than this many steps, are what the model may need again. */
const RECALLABLE_FROM_CHARS = 2500;
const RECALL_AFTER_STEPS = 10;
/** Over this size a re-read asks for the matches of a word rather than the whole. */
const QUERY_FROM_CHARS = 20_000;

interface State {
  random: Random;
  seed: number;
  steps: TraceStep[];
  files: Map<string, string>;
  /** Non-error tool results large enough to be worth re-reading, with the step they came at. */
  recallable: { id: string; chars: number; step: number; result: string }[];
  calls: number;
}

/** The whole trace, the same on every call for a seed. */
export function buildCostTrace(seed = COST_TRACE_SEED): TraceStep[] {
  const state: State = { random: seededRandom(seed), seed, steps: [], files: new Map(), recallable: [], calls: 0 };
  TASKS.forEach((task, taskIndex) => {
    state.steps.push({ kind: 'user', text: task });
    const toolSteps = 18 + Math.floor(state.random() * 5);
    for (let i = 0; i < toolSteps; i++) {
      // Two tasks end in a large document written in one call (≈40 KB of arguments).
      const bigWrite = (taskIndex === 2 || taskIndex === 5) && i === toolSteps - 2;
      state.steps.push(bigWrite ? writeFile(state, 38_000 + Math.floor(state.random() * 3000)) : nextStep(state));
    }
    state.steps.push({ kind: 'say', text: prose(state.random, 4 + Math.floor(state.random() * 4)) });
  });
  return state.steps;
}

function nextStep(state: State): TraceStep {
  const total = ACTIONS.reduce((sum, [, weight]) => sum + weight, 0);
  let roll = state.random() * total;
  const action = ACTIONS.find(([, weight]) => (roll -= weight) < 0)?.[0] ?? 'read_file';
  switch (action) {
    case 'read_file':
      return readFile(state, filePath(state.random));
    case 'reread':
      return state.files.size > 0 ? readFile(state, pick(state.random, [...state.files.keys()])) : readFile(state, filePath(state.random));
    case 'grep': {
      const pattern = pick(state.random, ['TODO', 'retry', 'timeout', 'cacheKey', 'deprecated', 'parseHeader']);
      const chars = state.random() < 0.35 ? logUniform(state.random, 200, 1900) : logUniform(state.random, 2000, 15_000);
      return tool(state, 'grep', { pattern, path: 'src' }, grepOutput(state.random, chars, pattern));
    }
    case 'shell':
      return shell(state);
    case 'fetch_url': {
      const url = `https://docs.example.org/${pick(state.random, ['guides', 'api', 'limits', 'changelog'])}/${state.calls}`;
      if (state.random() < 0.12) return tool(state, 'fetch_url', { url }, `Error: GET ${url} failed: HTTP 404 Not Found`, true);
      return tool(state, 'fetch_url', { url }, pageText(state.random, logUniform(state.random, 6000, 40_000), url));
    }
    case 'search': {
      const query = prose(state.random, 1).slice(0, 60);
      return tool(state, 'search', { query }, searchResults(state.random, logUniform(state.random, 3000, 10_000), query));
    }
    case 'edit_file':
      return editFile(state);
    case 'write_file':
      return writeFile(state, logUniform(state.random, 4000, 30_000));
    case 'recall':
      return recall(state) ?? readFile(state, filePath(state.random));
  }
}

function readFile(state: State, path: string): TraceStep {
  if (!state.files.has(path) && state.random() < 0.06) {
    return tool(state, 'read_file', { path }, `Error: ENOENT: no such file or directory, open '${path}'`, true);
  }
  let text = state.files.get(path);
  if (text === undefined) {
    const chars = state.random() < 0.25 ? logUniform(state.random, 300, 1900) : logUniform(state.random, 2000, 40_000);
    text = sourceText(state.random, chars);
    state.files.set(path, text);
  }
  return tool(state, 'read_file', { path }, numberedLines(text));
}

function shell(state: State): TraceStep {
  const roll = state.random();
  if (roll < 0.35) {
    const command = pick(state.random, ['git status --short', 'npm run lint', 'ls src', 'git diff --stat']);
    return tool(
      state,
      'shell',
      { command },
      testOutput(state.random, logUniform(state.random, 100, 1500), false)
        .split('\n')
        .slice(0, 12)
        .join('\n'),
    );
  }
  const failing = roll > 0.78;
  const chars = failing ? logUniform(state.random, 3000, 8000) : logUniform(state.random, 2000, 20_000);
  return tool(state, 'shell', { command: 'npm test -- --runInBand' }, testOutput(state.random, chars, failing), failing);
}

function editFile(state: State): TraceStep {
  const paths = [...state.files.keys()];
  if (paths.length === 0) return readFile(state, filePath(state.random));
  const path = pick(state.random, paths);
  const text = state.files.get(path) as string;
  const lines = text.split('\n');
  const from = Math.floor(state.random() * Math.max(1, lines.length - 10));
  const count = 2 + Math.floor(state.random() * Math.min(40, lines.length));
  const oldString = lines.slice(from, from + count).join('\n');
  const newString = sourceText(state.random, Math.max(100, oldString.length + Math.floor(state.random() * 800) - 200));
  state.files.set(path, text.replace(oldString, newString));
  return tool(state, 'edit_file', { path, old_string: oldString, new_string: newString }, `Edited ${path}: 1 replacement.`);
}

function writeFile(state: State, chars: number): TraceStep {
  const path =
    state.random() < 0.5 ? `docs/${pick(state.random, ['notes', 'guide', 'report', 'design'])}-${state.calls}.md` : filePath(state.random);
  const content = path.endsWith('.md') ? pageText(state.random, chars, path) : sourceText(state.random, chars);
  state.files.set(path, content);
  return tool(state, 'write_file', { path, content }, `Wrote ${content.length} bytes to ${path}.`);
}

function recall(state: State): TraceStep | null {
  const here = state.steps.length;
  const old = state.recallable.filter((r) => here - r.step >= RECALL_AFTER_STEPS);
  if (old.length === 0) return null;
  const target = pick(state.random, old);
  const query = target.chars > QUERY_FROM_CHARS ? wordIn(state.random, target.result) : null;
  return {
    kind: 'recall',
    id: callId(state),
    note: `I need the earlier ${query === null ? 'result' : `lines on ${query}`} again.`,
    target: target.id,
    query,
  };
}

function tool(state: State, name: string, input: Record<string, unknown>, result: string, isError = false): TraceStep {
  const id = callId(state);
  if (!isError && result.length >= RECALLABLE_FROM_CHARS)
    state.recallable.push({ id, chars: result.length, step: state.steps.length, result });
  const userNote = state.random() < 0.04 ? prose(state.random, 1) : null;
  return { kind: 'tool', id, name, note: prose(state.random, 1), input, result, isError, userNote };
}

/** A call id shaped like the providers' (`toolu_` and 24 characters), from the seed and the call's number. */
function callId(state: State): string {
  const digest = createHash('sha256').update(`${state.seed}:${state.calls++}`).digest('base64url');
  return `toolu_${digest.replace(/[-_]/g, 'x').slice(0, 24)}`;
}
