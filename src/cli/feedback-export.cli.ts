// Exports feedback events as versioned, redacted evaluation cases, one JSON object a line (R-FB-10):
//   DATABASE_URL=postgres://… npm run feedback:export -- --since 2026-05-01 --out cases.jsonl [--team <uuid>]
// An operator tool: it reads every team's feedback unless --team is given.
import { createWriteStream, renameSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { IsolationLevel, MikroORM } from '@mikro-orm/postgresql';
import { APP_ENTITIES } from '../app-entities';
import { UUID_PATTERN } from '../common/uuid-pattern';
import { ConfigError, loadConfig } from '../config/load-config';
import { ormOptions } from '../database/orm-options';
import { FEEDBACK_CASE_SCHEMA, feedbackCaseLine, FeedbackExportRepository } from '../feedback';
import { RecallEventRepository } from '../recall-events';

const HELP = `Usage: npm run feedback:export -- --since <ISO date> --out <file.jsonl> [--team <uuid>] [--page-size <n>]

Writes the feedback events recorded at or after --since as evaluation cases, one JSON object
per line (schema "${FEEDBACK_CASE_SCHEMA}"), oldest first, read in one consistent snapshot.

  --since <date>   ISO 8601 date or date-time, e.g. 2026-05-01 or 2026-05-01T00:00:00Z (required)
  --out <file>     where to write the JSONL (created or overwritten; required)
  --team <uuid>    only this team's events (default: ALL teams — this is an operator tool)
  --page-size <n>  rows read per query (default 500; keyset-paginated, one snapshot)
  --help           this text

Environment: DATABASE_URL (required) — the service's PostgreSQL.

Each case: caseId (the feedback event id), recallEventId, teamId, spaceId, spaceGeneration,
createdAt, contractVersion, rankingVersion, fusionMode, searchFreshness, degradedBranches,
queryFingerprint, query (the recall's query text only when its team enabled
recall_query_text_enabled, else null), returnedRefs, judgment {used, answerSupported, quality,
missingContext, irrelevant, irrelevantResultRefs, hypothesisFeedback}, comment. Comments are
redacted: e-mail addresses -> [email], runs of 6+ digits -> [digits] (ISO dates kept), token-like strings
(JWTs, sk-/ghp_-style keys, long hex/base64, Bearer credentials) -> [token]. No user id (the
recall's or the submitter's) is written. Review cases before using them: feedback is not a gold label.
`;

class UsageError extends Error {}

interface Options {
  since: Date;
  out: string;
  teamId: string | null;
  pageSize: number;
}

const DEFAULT_PAGE_SIZE = 500;

function parseOptions(argv: string[]): Options | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      since: { type: 'string' },
      out: { type: 'string' },
      team: { type: 'string' },
      'page-size': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) return 'help';
  if (!values.since) throw new UsageError('--since <ISO date> is required');
  if (!/^\d{4}-\d{2}-\d{2}/u.test(values.since) || Number.isNaN(Date.parse(values.since))) {
    throw new UsageError(`--since must be an ISO 8601 date or date-time, got "${values.since}"`);
  }
  if (!values.out) throw new UsageError('--out <file.jsonl> is required');
  if (values.team !== undefined && !UUID_PATTERN.test(values.team)) throw new UsageError(`--team must be a UUID, got "${values.team}"`);
  const pageSize = values['page-size'] === undefined ? DEFAULT_PAGE_SIZE : Number(values['page-size']);
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 10_000)
    throw new UsageError('--page-size must be an integer from 1 to 10000');
  return { since: new Date(values.since), out: values.out, teamId: values.team ?? null, pageSize };
}

async function main(): Promise<number> {
  let options: Options | 'help';
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`feedback:export: ${error instanceof Error ? error.message : String(error)}\n\n${HELP}`);
    return 1;
  }
  if (options === 'help') {
    process.stdout.write(HELP);
    return 0;
  }
  // The environment, validated once like the service's (a malformed variable is named).
  let databaseUrl: string | undefined;
  try {
    databaseUrl = loadConfig().database.url;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`feedback:export: ${error.message}\n`);
    return 1;
  }
  if (!databaseUrl) {
    process.stderr.write('feedback:export: DATABASE_URL is required (the PostgreSQL URL of the recall-ledger database)\n');
    return 1;
  }

  // The service's own way to the database (MikroORM's pool, runSql), one connection.
  const orm = await MikroORM.init(ormOptions({ url: databaseUrl, entities: APP_ENTITIES, poolMax: 1 }));
  // Written aside and renamed at the end: a failed export never leaves a truncated file behind.
  const partial = `${options.out}.partial`;
  const out = createWriteStream(partial, { encoding: 'utf8' });
  const closed = once(out, 'close');
  let written = 0;
  let complete = false;
  try {
    // One snapshot for every page: rows committed meanwhile neither appear nor shift the pages.
    await orm.em.fork().transactional(
      async (em) => {
        const recallEvents = new RecallEventRepository(em);
        const repository = new FeedbackExportRepository(em, (events) => recallEvents.findQueryTexts(events));
        for await (const record of repository.exportAllCasesSince(options.since, options.teamId, options.pageSize)) {
          if (!out.write(`${feedbackCaseLine(record)}\n`)) await once(out, 'drain');
          written += 1;
        }
      },
      { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true },
    );
    complete = true;
  } finally {
    await orm.close(true);
    out.end();
    await closed;
    if (complete) renameSync(partial, options.out);
    else rmSync(partial, { force: true });
  }
  const scope = options.teamId ? `team ${options.teamId}` : 'all teams';
  process.stdout.write(
    `feedback:export wrote ${written} case${written === 1 ? '' : 's'} (${scope}, since ${options.since.toISOString()}) to ${options.out}\n`,
  );
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`feedback:export failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
