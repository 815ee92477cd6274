import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import type { BenchContext, ResultRow } from './context';
import { loadSideBySide, ratiosByPhase, type SideCall } from './side-by-side';

/** How much more Node CPU a request this tree may take than the other (issue 53: no more than 5 % worse). */
const VERSUS_RISE = 0.05;
const VERSUS_PHASES = 8;
/** Both processes are fresh: tiering makes a new process faster for its first tens of seconds. */
const VERSUS_WARMUP_MS = 15_000;

const ME = `{ me { userId teamId } }`;
const RECALL_BLOCK = `query($c: ID!) { recallBlock(conversationId: $c) { text tokens injected droppedCount lines { memId } } }`;

/**
 * This tree's service beside another checkout's (BENCH_VERSUS_TREE, a clone with its packages
 * installed), on the same database, both loaded at once (side-by-side.ts): the floor and
 * recallBlock, each side's Node CPU a request. Rows measured one tree after the other move by a
 * third between runs on this machine; side by side, what a change costs a request stands out of
 * that drift. BENCH_VERSUS_ENV (`NAME=value,…`) adds settings the other tree needs (a variable
 * this tree has retired, say). Skipped without BENCH_VERSUS_TREE.
 */
export async function versusOps(ctx: BenchContext): Promise<ResultRow[]> {
  const tree = process.env.BENCH_VERSUS_TREE;
  if (tree === undefined || tree === '') {
    ctx.log('  versus: skipped (BENCH_VERSUS_TREE names no other checkout)');
    return [];
  }
  const root = resolve(tree);
  const names = { here: commitOf(process.cwd()), other: commitOf(root) };
  const other = await ctx.freshService({ tree: root, env: settingsFrom(process.env.BENCH_VERSUS_ENV) });
  const here = await ctx.freshService({});
  const { data, tokens } = ctx;
  const calls: [string, SideCall][] = [
    ['floor: { me }', (client, worker, seq) => client.call(ME, {}, tokens[(worker * 31 + seq) % data.users])],
    [
      `recallBlock (top 5 of ~${Math.round(data.snapshots / data.conversations)})`,
      (client, worker, seq) => {
        const c = (worker * 7919 + seq * 31) % data.conversations;
        return client.call(RECALL_BLOCK, { c: data.conversationIds[c] }, tokens[c % data.users]);
      },
    ],
  ];
  const rows: ResultRow[] = [];
  try {
    for (const [op, call] of calls) {
      const figures = await loadSideBySide(
        ctx,
        [
          { name: names.other, client: other.client, pid: other.pid },
          { name: names.here, client: here.client, pid: here.pid },
        ],
        call,
        { phases: VERSUS_PHASES, warmupMs: VERSUS_WARMUP_MS },
      );
      const { errors, meanCpu, rps } = figures;
      rows.push({
        op: `versus ${names.other}: ${op}`,
        concurrency: ctx.settings.concurrency,
        service: null,
        raw: null,
        ratio: figures.ratio,
        ratioBasis: 'Node CPU',
        target: `≤ ${1 + VERSUS_RISE}× ${names.other}'s Node CPU a request`,
        pass: errors.length === 0 && figures.ratio <= 1 + VERSUS_RISE,
        notes: [
          `Node CPU a request, mean of ${figures.phases.length} phases: ${names.here} ${meanCpu[1].toFixed(3)} ms, ${names.other} ${meanCpu[0].toFixed(3)} ms; ${rps[1].toFixed(0)} and ${rps[0].toFixed(0)} rps`,
          `${names.here} / ${names.other} by phase: ${ratiosByPhase(figures)}`,
          ...(errors.length > 0 ? [`${errors.length} errors, first: ${errors[0]}`] : []),
        ],
      });
    }
  } finally {
    await here.stop();
    await other.stop();
  }
  return rows;
}

/** A checkout's commit, short, and "+" when its tree has changes. */
function commitOf(root: string): string {
  const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' }).trim();
  return git('rev-parse', '--short', 'HEAD') + (git('status', '--porcelain', '--untracked-files=no') === '' ? '' : '+');
}

/** `NAME=value,NAME=value` as an environment. */
function settingsFrom(list: string | undefined): Record<string, string> {
  const entries = (list ?? '')
    .split(',')
    .filter((item) => item.trim() !== '')
    .map((item) => {
      const at = item.indexOf('=');
      if (at <= 0) throw new Error(`BENCH_VERSUS_ENV: "${item}" is not NAME=value`);
      return [item.slice(0, at).trim(), item.slice(at + 1)] as const;
    });
  return Object.fromEntries(entries);
}
