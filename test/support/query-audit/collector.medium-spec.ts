import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { withDatabase } from '../../../src/database/database-url';
import { REQUEST_ROLE, withCredentials } from '../../../src/database/request-role';
import { APP_PASSWORD_ENV, SERVER_URL_ENV, TEMPLATE_ENV, TEST_OWNER_ROLE, withAdminClient } from '../test-database';
import { AUDIT_LOG_DIR_ENV, collectFindings, formatFindings, PROBE_DATABASE_PREFIX, type AuditResult } from './collector';
import { EXEMPT_MARKER } from './plan-audit';

/**
 * R-TN-9 (requirements §10, the Citus plan): the query audit end to end, on this run's server
 * and its collection path. Statements run as the request role on a probe database; the server's
 * JSON log is read back by the collector the global teardown uses, which reports the planted
 * statements and only them. The run's own audit leaves the probe database out.
 */

const logDir = process.env[AUDIT_LOG_DIR_ENV];
if (!logDir) console.log('query audit collector test: skipped, this run does not audit (see the line the global setup printed)');
const describeAudited = logDir ? describe : describe.skip;

const PLANTED = 'select count(*) from spaces where name = $1';
const NESTED = `do $$ begin perform count(*) from spaces where name = 'nested probe'; end $$`;
const GOOD = 'select count(*) from spaces where team_id = $1 and name = $2';
const TEAM_WALK = 'select id from tenancy_team_ids() as t(id)';
const MARKED = `/* ${EXEMPT_MARKER}: a deliberate probe */ select count(*) from users`;

interface ProbeDatabase {
  name: string;
  appUrl: string;
  drop(): Promise<unknown>;
}

/** A clone of the migrated template, as createTestDatabase makes, under a probe's name. */
async function createProbeDatabase(): Promise<ProbeDatabase> {
  const name = `${PROBE_DATABASE_PREFIX}_${randomBytes(6).toString('hex')}`;
  await withAdminClient((c) => c.query(`create database "${name}" owner ${TEST_OWNER_ROLE} template "${process.env[TEMPLATE_ENV]}"`));
  const url = withDatabase(process.env[SERVER_URL_ENV]!, name);
  return {
    name,
    appUrl: withCredentials(url, REQUEST_ROLE, process.env[APP_PASSWORD_ENV]!),
    drop: () => withAdminClient((c) => c.query(`drop database if exists "${name}" with (force)`)),
  };
}

describeAudited('R-TN-9 query audit: the collector', () => {
  let db: ProbeDatabase;
  let result: AuditResult;

  beforeAll(async () => {
    db = await createProbeDatabase();
    const app = new Client({ connectionString: db.appUrl });
    await app.connect();
    try {
      const team = crypto.randomUUID();
      await app.query('begin');
      await app.query(`select set_config('app.team_id', $1, true)`, [team]);
      await app.query(PLANTED, ['probe']);
      await app.query(GOOD, [team, 'probe']);
      await app.query(NESTED);
      await app.query(TEAM_WALK);
      await app.query(MARKED);
      await app.query('rollback');
    } finally {
      await app.end();
    }
    // The logging collector writes the log a moment after the backend hands it the lines.
    const deadline = Date.now() + 15_000;
    do {
      result = await collectFindings(logDir!, { database: db.name });
      if (result.findings.length >= 2 && result.exempt.length >= 3) break;
      await new Promise((resolve) => setTimeout(resolve, 100)); // a pause between reads of the log, not a wait in their place
    } while (Date.now() < deadline);
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('R-TN-9 a planted statement without a team_id condition is reported, with its table, and a statement on its team is not', () => {
    const planted = result.findings.find((f) => f.queryText === PLANTED);
    expect(planted?.violations).toEqual([
      expect.objectContaining({ table: 'spaces', reason: expect.stringContaining("only row-level security's team_id") }),
    ]);
    expect(result.findings.map((f) => f.queryText)).not.toContain(GOOD);
    expect(formatFindings(result)).toContain(`${PLANTED}\n   - spaces, `);
  });

  it('R-TN-9 a statement nested in a function is reported with the function it ran in', () => {
    const nested = result.findings.find((f) => f.queryText.includes("name = 'nested probe'"));
    expect(nested?.violations).toEqual([expect.objectContaining({ table: 'spaces' })]);
    expect(nested?.context).toContain('PL/pgSQL function inline_code_block');
    expect(result.findings).toHaveLength(2);
  });

  it("R-TN-9 the scheduler's team walk (inside tenancy_team_ids) and a statement a test marks are exempt", () => {
    expect(result.exempt).toEqual(expect.arrayContaining([TEAM_WALK, expect.stringMatching(/\bfrom teams\b/), MARKED]));
  });

  it("R-TN-9 the run's audit leaves the probe databases out", async () => {
    expect(result.statements).toBeGreaterThanOrEqual(6);
    const run = await collectFindings(logDir!, { database: db.name, skipProbes: true });
    expect(run.statements).toBe(0);
  });
});
