import type { EntityManager } from '@mikro-orm/postgresql';
import { Counter, Gauge, Registry } from 'prom-client';
import { TokenCounter } from '../../src/common/text/token-counter';
import { WorkerPoolMetrics } from '../../src/common/workers/worker-pool.metrics';
import type { AppConfig } from '../../src/config/app-config';
import { loadConfig } from '../../src/config/load-config';
import { JsonPathMetrics } from '../../src/lookup/json-path/json-path.metrics';
import { LookupPool } from '../../src/lookup/lookup-pool';
import { buildHandle } from '../../src/tool-results/handle/build-handle';
import { HandleFieldsPool } from '../../src/tool-results/handle/handle-fields-pool';
import type { ToolResultHandle } from '../../src/tool-results/handle/tool-result-handle';
import { ConversationRepository } from '../../src/tool-results/conversation.repository';
import { TeamSummaryRulesRepository } from '../../src/tool-results/team-summary-rules/team-summary-rules.repository';
import { TeamSummaryRulesService } from '../../src/tool-results/team-summary-rules/team-summary-rules.service';
import { ToolResultDeletionRepository } from '../../src/tool-results/tool-result-deletion.repository';
import { ToolResultJsonPathRepository } from '../../src/tool-results/tool-result-json-path.repository';
import { ToolResultWriteRepository } from '../../src/tool-results/tool-result-write.repository';
import { ToolResultRepository } from '../../src/tool-results/tool-result.repository';
import { ToolResultMetrics } from '../../src/tool-results/tool-results.metrics';
import { ToolResultDeletions } from '../../src/tool-results/tool-result-deletions.service';
import { ToolResultPathLookups } from '../../src/tool-results/tool-result-path-lookups.service';
import { ToolResultReader } from '../../src/tool-results/tool-result-reader.service';
import { ToolResultWriter } from '../../src/tool-results/tool-result-writer.service';

/** A configuration for medium tests, with overrides by environment variable name. */
export function testConfig(overrides: Record<string, string> = {}): AppConfig {
  return loadConfig({ AUTH_JWT_SECRET: 'k'.repeat(40), ...overrides });
}

/** ToolResults' services, by role, over the real repositories on a test database, with their own metric registry. */
export interface ToolResultServices {
  writer: ToolResultWriter;
  reader: ToolResultReader;
  pathLookups: ToolResultPathLookups;
  deletions: ToolResultDeletions;
}

/** The ToolResults services over the real repositories on a test database, with their own metric registry. */
export function toolResultServicesFor(em: EntityManager, config: AppConfig = testConfig()): ToolResultServices {
  const registers = [new Registry()];
  const metrics = new ToolResultMetrics(
    new Counter({ name: 'c', help: 'c', labelNames: ['tool_name'], registers }),
    new Counter({ name: 'f', help: 'f', labelNames: ['reason'], registers }),
    config,
  );
  const summaryRules = new TeamSummaryRulesService(new TeamSummaryRulesRepository(em));
  const conversations = new ConversationRepository(em);
  const reader = new ToolResultReader(new ToolResultRepository(em), conversations, config);
  const writer = new ToolResultWriter(
    new ToolResultWriteRepository(em),
    reader,
    summaryRules,
    config,
    metrics,
    tokenCounterFor(config),
    new HandleFieldsPool(config, workerPoolMetricsFor(), metrics),
  );
  return {
    writer,
    reader,
    pathLookups: new ToolResultPathLookups(new ToolResultJsonPathRepository(em)),
    deletions: new ToolResultDeletions(new ToolResultDeletionRepository(em), conversations),
  };
}

/** The token-count pool with metrics of its own registry (its idle threads never keep a test process alive). */
export function tokenCounterFor(config: AppConfig = testConfig()): TokenCounter {
  return new TokenCounter(config, workerPoolMetricsFor());
}

/** Worker-pool gauges of a registry of their own. */
export function workerPoolMetricsFor(): WorkerPoolMetrics {
  const registers = [new Registry()];
  const gauge = (name: string) => new Gauge({ name, help: name, labelNames: ['pool'], registers });
  return new WorkerPoolMetrics(gauge('q'), gauge('b'));
}

/** ToolResults' snapshot repository on a test database, for tests of the plans other modules' statements get. */
export function toolResultRepositoryFor(em: EntityManager): ToolResultRepository {
  return new ToolResultRepository(em);
}

/** The handle columns a test's SQL insert names, in the order of {@link handleColumns}. */
export const HANDLE_COLUMNS = 'summary_oneliner, schema_hint, head_preview, stub, size_tokens';

/** The handle column values for a row a test inserts with SQL, built as the write path builds them. */
export function handleColumns(row: {
  memId: string;
  toolName: string;
  toolUseId: string;
  sizeChars: number;
  toolInput: unknown;
  toolOutput: unknown;
}): [string, string | null, string | null, string, number] {
  const handle: ToolResultHandle = buildHandle(row);
  return [handle.summaryOneliner, handle.schemaHint, handle.headPreview, handle.stub, handle.sizeTokens];
}

// Internals of ToolResults that tests of the modules above build their expectations with.
export { renderStub } from '../../src/tool-results/handle/stub';
export { summarizeToolResult } from '../../src/tool-results/summarizer/summarize-tool-result';

/** The JSONPath worker pool for medium tests, with its own metric registry; destroy it in afterAll. */
export function lookupPoolFor(config: AppConfig = testConfig()): LookupPool {
  const registers = [new Registry()];
  const metrics = new JsonPathMetrics(
    new Gauge({ name: 'busy', help: 'busy', registers }),
    new Gauge({ name: 'queued', help: 'queued', registers }),
    new Counter({ name: 'evaluations', help: 'evaluations', labelNames: ['outcome'], registers }),
    new Counter({ name: 'searches', help: 'searches', labelNames: ['outcome'], registers }),
    new Counter({ name: 'text_searches', help: 'text searches', labelNames: ['outcome'], registers }),
    new Counter({ name: 'payload_texts', help: 'payload texts', labelNames: ['outcome'], registers }),
  );
  return new LookupPool(config, metrics);
}
