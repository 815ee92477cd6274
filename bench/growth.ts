import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchReport } from './report';

/*
 * `npm run bench:growth` (issue 40): the hot reads' p50 at one client on a small and on the full
 * data set, in two bench runs back to back (each with its own PostgreSQL, the same users and
 * conversations: each user holds ten times the snapshots in the second). Target: p50 grows ≤ 1.2×.
 * Environment: GROWTH_SMALL (100000), GROWTH_LARGE (1000000), GROWTH_OPS (block,search,path), and
 * the bench's own variables (BENCH_DURATION_MS, …) for both runs.
 */

const TARGET = 1.2;
const RESULTS = join(__dirname, 'results');

function sizeFromEnv(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
}

/** One bench run at `snapshots`; its report (a run that misses its own targets still reports). */
function benchAt(snapshots: number, ops: string): BenchReport {
  const file = join(RESULTS, `growth-${snapshots}.json`);
  const run = spawnSync(process.execPath, ['-r', '@swc-node/register', join(__dirname, 'run-bench.ts')], {
    env: { ...process.env, BENCH_SNAPSHOTS: String(snapshots), BENCH_OPS: ops, BENCH_RESULTS: file },
    stdio: 'inherit',
  });
  if (run.status !== 0 && run.status !== 1) throw new Error(`the bench at ${snapshots} snapshots failed (exit ${run.status})`);
  return JSON.parse(readFileSync(file, 'utf8')) as BenchReport;
}

/** A row's name without its figures ("~200 snapshots a user" and "~2000 …" are the same row). */
const rowKey = (op: string): string => op.replace(/[\d,.]+/g, 'N');

function main(): void {
  const small = sizeFromEnv('GROWTH_SMALL', 100_000);
  const large = sizeFromEnv('GROWTH_LARGE', 1_000_000);
  const ops = process.env.GROWTH_OPS ?? 'block,search,path';
  const before = benchAt(small, ops);
  const after = benchAt(large, ops);
  const lines = [
    `growth of the service's p50 at one client, ${small.toLocaleString('en-US')} → ${large.toLocaleString('en-US')} snapshots`,
  ];
  let pass = true;
  for (const row of after.rows.filter((r) => r.concurrency === 1 && r.service)) {
    const base = before.rows.find((r) => r.concurrency === 1 && rowKey(r.op) === rowKey(row.op));
    if (!base?.service || !row.service) continue;
    const growth = row.service.p50 / base.service.p50;
    const ok = growth <= TARGET;
    pass &&= ok;
    lines.push(
      `  ${row.op}: p50 ${base.service.p50.toFixed(2)} → ${row.service.p50.toFixed(2)} ms, ${growth.toFixed(2)}× (≤ ${TARGET}×) ${ok ? 'PASS' : 'FAIL'}`,
    );
  }
  console.log(`\n${lines.join('\n')}`);
  process.exitCode = pass ? 0 : 1;
}

main();
