import type { EntityManager } from '@mikro-orm/postgresql';
import { Counter, Registry } from 'prom-client';
import type { AppConfig } from '../../src/config/app-config';
import { FeedbackEventRepository } from '../../src/feedback/feedback-event.repository';
import { FeedbackMetrics } from '../../src/feedback/feedback.metrics';
import { FeedbackService } from '../../src/feedback/feedback.service';
import type { RetentionMetrics } from '../../src/retention/retention.metrics';
import { RetentionRepository } from '../../src/retention/retention.repository';
import { RetentionSweepService } from '../../src/retention/retention-sweep.service';
import { SweepLeases } from '../../src/retention/sweep-leases';
import { UnitOfWork } from '../../src/database/unit-of-work';
import { FeatureFlagRepository } from '../../src/tenancy/feature-flag.repository';
import { FeatureFlagService } from '../../src/tenancy/feature-flag.service';
import { TeamRepository } from '../../src/tenancy/team.repository';
import { TeamService } from '../../src/tenancy/team.service';
import { UserRepository } from '../../src/tenancy/user.repository';
import { UserService } from '../../src/tenancy/user.service';
import { recallEventServiceFor } from './recall-services';
import { toolResultServicesFor } from './tool-results-service';

/** Feedback's service over the real repositories, its metrics on a registry of their own. */
export function feedbackServiceFor(em: EntityManager, config: AppConfig): FeedbackService {
  const registers = [new Registry()];
  const counter = (name: string, labelNames: string[] = []) => new Counter({ name, help: name, labelNames, registers });
  const metrics = new FeedbackMetrics(
    counter('s', ['outcome']),
    counter('i', ['used', 'answer_supported', 'quality']),
    counter('m'),
    counter('r'),
  );
  return new FeedbackService(
    new FeedbackEventRepository(em),
    recallEventServiceFor(em),
    new FeatureFlagService(new FeatureFlagRepository(em), config),
    metrics,
  );
}

/**
 * The retention sweep service with every module's real service under it. `em` must be the ORM's own
 * (context-aware) EntityManager: each batch is a transaction the modules' repositories join.
 */
export function retentionServiceFor(
  em: EntityManager,
  config: AppConfig,
  metrics: RetentionMetrics,
): { service: RetentionSweepService; repository: RetentionRepository } {
  const repository = new RetentionRepository(em);
  const service = new RetentionSweepService(
    new SweepLeases(repository, config),
    new UnitOfWork(em),
    toolResultServicesFor(em, config).deletions,
    recallEventServiceFor(em),
    feedbackServiceFor(em, config),
    new TeamService(new TeamRepository(em)),
    new UserService(new UserRepository(em)),
    config,
    metrics,
  );
  return { service, repository };
}
