import { loadConfig } from '../../config/load-config';
import { createTestOrm, type TestOrm } from '../../../test/support/test-orm';
import { FeatureFlagRepository } from '../feature-flag.repository';
import { FeatureFlagService } from '../feature-flag.service';
import { FeatureFlagKey } from '../feature-flags';

describe('FeatureFlagService (medium, real PostgreSQL)', () => {
  let db: TestOrm;
  const teamId = crypto.randomUUID();

  beforeAll(async () => {
    db = await createTestOrm();
    await db.orm.em.fork().execute('insert into teams (id) values (?)', [teamId]);
  });
  afterAll(() => db.close());

  /** One service per simulated replica, each with its own cache, on the same database. */
  const replica = (ttlMs: number) =>
    new FeatureFlagService(
      new FeatureFlagRepository(db.orm.em.fork()),
      loadConfig({ AUTH_JWT_SECRET: 'k'.repeat(40), FEATURE_FLAG_CACHE_TTL_MS: String(ttlMs) }),
    );

  it('R-TN-7 a change made on one replica reaches another once its cache TTL has passed', async () => {
    // The clock is the test's (Date only: timers and I/O stay real for the database).
    jest.useFakeTimers({
      doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'queueMicrotask'],
    });
    try {
      const reader = replica(300);
      const writer = replica(300);
      expect(await reader.isEnabled(teamId, FeatureFlagKey.RECALL_FEEDBACK_ENABLED)).toBe(false);
      await writer.setForTeam(teamId, FeatureFlagKey.RECALL_FEEDBACK_ENABLED, true);
      expect(await writer.isEnabled(teamId, FeatureFlagKey.RECALL_FEEDBACK_ENABLED)).toBe(true);
      // Still inside the reader's TTL: its cached value stands.
      jest.setSystemTime(Date.now() + 299);
      expect(await reader.isEnabled(teamId, FeatureFlagKey.RECALL_FEEDBACK_ENABLED)).toBe(false);
      jest.setSystemTime(Date.now() + 1);
      expect(await reader.isEnabled(teamId, FeatureFlagKey.RECALL_FEEDBACK_ENABLED)).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });

  it('R-TN-7 with a TTL of 0 every read sees the database', async () => {
    const reader = replica(0);
    const writer = replica(0);
    await writer.setForTeam(teamId, FeatureFlagKey.RECALL_FEEDBACK_ENABLED, false);
    expect(await reader.isEnabled(teamId, FeatureFlagKey.RECALL_FEEDBACK_ENABLED)).toBe(false);
    await writer.setForTeam(teamId, FeatureFlagKey.RECALL_FEEDBACK_ENABLED, true);
    expect(await reader.isEnabled(teamId, FeatureFlagKey.RECALL_FEEDBACK_ENABLED)).toBe(true);
  });

  it('R-TN-7 a team without its own row reads the global default', async () => {
    const other = crypto.randomUUID();
    await db.orm.em.fork().execute('insert into teams (id) values (?)', [other]);
    expect(await replica(0).listForTeam(other)).toEqual(
      expect.arrayContaining([
        { key: 'recall_feedback_enabled', enabled: false },
        { key: 'recall_query_text_enabled', enabled: false },
      ]),
    );
    expect(await replica(0).listForTeam(other)).toHaveLength(2);
  });
});
