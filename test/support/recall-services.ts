import type { EntityManager } from '@mikro-orm/postgresql';
import { RecallReads } from '../../src/recall/recall-reads.service';
import { RecallReadsRepository } from '../../src/recall/recall-reads.repository';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AppConfig } from '../../src/config/app-config';
import { RecallEventRepository } from '../../src/recall-events/recall-event.repository';
import { RecallEventService } from '../../src/recall-events/recall-event.service';
import { RecallEventMetrics } from '../../src/recall-events/recall-events.metrics';
import { RecallMetrics } from '../../src/recall/recall.metrics';
import { FeatureFlagRepository } from '../../src/tenancy/feature-flag.repository';
import { FeatureFlagService } from '../../src/tenancy/feature-flag.service';
import { testConfig, toolResultServicesFor } from './tool-results-service';

/** Recall's metrics on a registry of their own. */
export function recallMetricsFor(): RecallMetrics {
  const registers = [new Registry()];
  return new RecallMetrics(new Gauge({ name: 'g', help: 'g', registers }), new Histogram({ name: 'h', help: 'h', registers }));
}

/** Recall Events' metrics on a registry of their own. */
function recallEventMetricsFor(): RecallEventMetrics {
  return new RecallEventMetrics(new Counter({ name: 'c', help: 'c', labelNames: ['source', 'outcome'], registers: [new Registry()] }));
}

/** The recall event service over the real repositories on a test database (flags uncached). */
export function recallEventServiceFor(
  em: EntityManager,
  metrics = recallEventMetricsFor(),
  config: AppConfig = testConfig({ FEATURE_FLAG_CACHE_TTL_MS: '0' }),
): RecallEventService {
  return new RecallEventService(
    new RecallEventRepository(em),
    new FeatureFlagService(new FeatureFlagRepository(em), config),
    metrics,
    toolResultServicesFor(em, config).reader,
  );
}

/** Recall's reads that store their event in the same statement, over the real repository on a test database. */
export function recallReadsFor(em: EntityManager): RecallReads {
  return new RecallReads(new RecallReadsRepository(em));
}
