import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { LoadResult } from './load-runner';
import type { ResultRow } from './ops/context';

export interface BenchReport {
  generatedAt: string;
  environment: Record<string, string | number>;
  dataSet: { users: number; conversations: number; snapshots: number; loadSeconds: number };
  settings: Record<string, number>;
  rows: ResultRow[];
}

const HEADERS = ['op', 'c', 'svc rps', 'svc p50', 'svc p99', 'raw rps', 'raw p50', 'raw p99', 'ratio', 'target', 'result'];

const rps = (r: LoadResult | null): string => (r ? r.rps.toFixed(0) : '—');
const ms = (value: number | undefined): string => (value === undefined || Number.isNaN(value) ? '—' : `${value.toFixed(2)} ms`);
const verdict = (pass: boolean | null): string => (pass === null ? 'info' : pass ? 'PASS' : 'FAIL');

function cells(row: ResultRow): string[] {
  const ratio = row.ratio === null ? '—' : row.ratioBasis === 'tokens' ? `${(row.ratio * 100).toFixed(1)}%` : `${row.ratio.toFixed(2)}×`;
  return [
    row.op,
    String(row.concurrency),
    rps(row.service),
    ms(row.service?.p50),
    ms(row.service?.p99),
    rps(row.raw),
    ms(row.raw?.p50),
    ms(row.raw?.p99),
    `${ratio} (${row.ratioBasis})`,
    row.target,
    verdict(row.pass),
  ];
}

/** The table as text, each row followed by its notes. */
export function formatTable(rows: readonly ResultRow[]): string {
  const table = [HEADERS, ...rows.map(cells)];
  const widths = HEADERS.map((_, i) => Math.max(...table.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((cell, i) => cell.padEnd(widths[i])).join(' │ ');
  const out = [line(HEADERS), widths.map((w) => '─'.repeat(w)).join('─┼─')];
  for (const row of rows) {
    out.push(line(cells(row)));
    const spent: string[] = [];
    if (row.service)
      spent.push(
        `service node ${row.service.nodeCpuMsPerRequest.toFixed(2)} ms + postgres ${row.service.postgresCpuMsPerRequest.toFixed(2)} ms (client ${row.service.clientCpuMsPerRequest.toFixed(2)} ms)`,
      );
    if (row.raw)
      spent.push(`raw node ${row.raw.clientCpuMsPerRequest.toFixed(2)} ms + postgres ${row.raw.postgresCpuMsPerRequest.toFixed(2)} ms`);
    // A row with neither side (storage) measured no requests.
    if (spent.length > 0) out.push(`    · CPU per request: ${spent.join('; ')}`);
    for (const note of row.notes) out.push(`    · ${note}`);
  }
  return out.join('\n');
}

/** Writes a bench's report as indented JSON, creating its folder. */
export function writeJson(path: string, report: object): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
}

/** The commit measured, marked when the working tree differs from it. */
export function treeName(): string {
  try {
    const commit = execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
    const dirty = execSync('git status --porcelain --untracked-files=no', { encoding: 'utf8' }).trim() !== '';
    return dirty ? `${commit} with uncommitted changes` : commit;
  } catch {
    return 'unknown';
  }
}
