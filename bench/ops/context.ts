import type { Pool } from 'pg';
import type { DataSet } from '../data-loader';
import type { GraphqlClient } from '../graphql-client';
import { type LoadOptions, type LoadResult, runLoad, type Task } from '../load-runner';

export interface BenchSettings {
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  maxRequests: number;
}

/** What every operation gets: the data set, the service over HTTP and `pg` on the same database. */
export interface BenchContext {
  data: DataSet;
  service: GraphqlClient;
  /** Raw side: a pool as large as the concurrency. */
  raw: Pool;
  /** A memory:read+write token per user, by user index. */
  tokens: string[];
  settings: BenchSettings;
  log(line: string): void;
  /**
   * Starts the bare stack (bench/bare-app-process.ts) on the same database. Within `measured`, the
   * service-CPU reading is the bare stack's process.
   */
  bareStack(
    adapter: 'express' | 'fastify',
  ): Promise<{ client: GraphqlClient; measured<T>(work: () => Promise<T>): Promise<T>; stop(): Promise<void> }>;
  /**
   * Starts another service on the same database, fresh: with traces on when `traces` says so
   * (OTLP/HTTP to a sink in the bench process; a request without a caller's decision sampled at
   * `ratio`), else as the service runs; `tree`, another checkout's service (its own code and
   * packages) with `env` added. `exported` counts the export requests the sink took.
   */
  freshService(options: FreshServiceOptions): Promise<{
    client: GraphqlClient;
    pid: number;
    exported(): { requests: number; bytes: number };
    stop(): Promise<void>;
  }>;
  /** Called after each measured phase (pg_stat_statements, when enabled). */
  afterPhase(label: string): Promise<void>;
  beforePhase(): Promise<void>;
}

interface FreshServiceOptions {
  readonly traces?: { ratio: number };
  /** The root of another checkout of this repository, whose service runs instead of this tree's. */
  readonly tree?: string;
  readonly env?: Readonly<Record<string, string>>;
}

type RatioBasis = 'throughput' | 'p50 latency' | 'p99 latency' | 'tokens' | 'bytes' | 'Node CPU';

export interface ResultRow {
  op: string;
  concurrency: number;
  service: LoadResult | null;
  raw: LoadResult | null;
  /** service/raw: rps for throughput ops, p50 for latency ops; tokensAfter/tokensBefore for compaction; stored/raw payload bytes for storage; traced/untraced Node CPU a request for traces. */
  ratio: number | null;
  ratioBasis: RatioBasis;
  target: string;
  /** null: informational, no target applies to this row. */
  pass: boolean | null;
  notes: string[];
}

export function loadOptions(settings: BenchSettings, concurrency: number): LoadOptions {
  return { concurrency, warmupMs: settings.warmupMs, durationMs: settings.durationMs, maxRequests: settings.maxRequests };
}

/** A row's verdict also fails when either side had errors. */
export function clean(...results: (LoadResult | null)[]): boolean {
  return results.every((r) => r === null || (r.errors === 0 && r.requests > 0));
}

export function errorNotes(...results: [string, LoadResult | null][]): string[] {
  return results.flatMap(([side, r]) => (r && r.errors > 0 ? [`${side}: ${r.errors} errors, first: ${r.firstError}`] : []));
}

/** The raw side, then the service side, each its own measured phase with the same options. */
export async function measureSideBySide(
  ctx: BenchContext,
  label: string,
  rawTask: Task,
  serviceTask: Task,
  options: LoadOptions,
): Promise<{ raw: LoadResult; service: LoadResult }> {
  await ctx.beforePhase();
  const raw = await runLoad(rawTask, options);
  await ctx.afterPhase(`${label} — raw`);
  await ctx.beforePhase();
  const service = await runLoad(serviceTask, options);
  await ctx.afterPhase(`${label} — service`);
  return { raw, service };
}
