import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Client } from 'pg';
import { REQUEST_ROLE } from '../../../src/database/request-role';
import { auditPlan, type ExplainedStatement, isExempt, type ScanViolation, TENANT_TABLES, type TenantTables } from './plan-audit';

/**
 * The query audit's collection (R-TN-9, requirements §10): while the tests run, PostgreSQL logs
 * the plan of every statement the request role runs, nested ones included (auto_explain, loaded
 * for that role's sessions only: the owner's statements are migrations and fixtures), as JSON
 * lines in the data folder; at the end of the run the log is read back and every plan goes
 * through the analyzer (plan-audit.ts). Docs: docs/testing.md, "The query audit".
 */

/** Set by the global setup when the run audits: the folder PostgreSQL writes its JSON log to. */
export const AUDIT_LOG_DIR_ENV = 'RECALL_LEDGER_TEST_AUDIT_LOG_DIR';

/** Statements in databases named so are a test's own probes of the audit: the run's audit leaves them out. */
export const PROBE_DATABASE_PREFIX = 'rl_audit_probe';

/**
 * Whether this run audits: only on the embedded PostgreSQL the run starts (an external server's
 * logging is not ours to change), and always in CI; `TEST_QUERY_AUDIT=off` turns it off elsewhere.
 */
export function queryAuditDecision(env: NodeJS.ProcessEnv, external: boolean): { audit: boolean; line?: string } {
  if (external)
    return { audit: false, line: 'query audit: skipped, the tests run on an external server (TEST_DATABASE_URL or DATABASE_URL)' };
  if (env.TEST_QUERY_AUDIT === 'off') {
    if (env.CI === 'true') return { audit: true, line: 'query audit: TEST_QUERY_AUDIT=off is ignored in CI (CI=true)' };
    return { audit: false, line: 'query audit: off (TEST_QUERY_AUDIT=off)' };
  }
  return { audit: true };
}

/** The folder, inside the data folder, that the settings below make PostgreSQL log to. */
export const AUDIT_LOG_FOLDER = 'audit-log';

/** The embedded server's settings for an audited run (`postgres -c`); the role gets auto_explain from enableQueryAudit. */
export const AUDIT_SERVER_SETTINGS: Readonly<Record<string, string>> = {
  logging_collector: 'on',
  log_destination: 'jsonlog',
  log_directory: AUDIT_LOG_FOLDER,
  'auto_explain.log_min_duration': '0',
  'auto_explain.log_nested_statements': 'on',
  'auto_explain.log_format': 'json',
  'auto_explain.log_parameter_max_length': '0',
};

/** Loads auto_explain into every new session of the request role (a role setting, server-wide). */
export async function enableQueryAudit(admin: Client): Promise<void> {
  await admin.query(`alter role ${REQUEST_ROLE} set session_preload_libraries = 'auto_explain'`);
}

/** One statement text that broke the rule, with every tenant scan that did. */
interface AuditFinding {
  queryText: string;
  /** auto_explain's error context: the function (and line) a nested statement ran in, or an RI check. */
  context?: string;
  violations: ScanViolation[];
  /** How many logged plans of this text broke it. */
  times: number;
}

export interface AuditResult {
  /** Plans of the request role read from the log. */
  statements: number;
  /** Distinct plans analyzed. */
  distinctPlans: number;
  /** The size of the log read. */
  bytes: number;
  /** Distinct texts left out: the scheduler's team walk, and statements a test marks. */
  exempt: string[];
  findings: AuditFinding[];
}

export interface CollectOptions {
  /** Only this database's statements (a probe's). */
  database?: string;
  /** Leave out the probes' databases (the run's audit). */
  skipProbes?: boolean;
  tenantTables?: TenantTables;
}

interface LogEntry {
  user?: string;
  dbname?: string;
  message?: string;
  context?: string;
}

/** Reads every JSON log file in `logDir` and audits the request role's plans. */
export async function collectFindings(logDir: string, options: CollectOptions = {}): Promise<AuditResult> {
  const files = existsSync(logDir)
    ? readdirSync(logDir)
        .filter((f) => f.endsWith('.json'))
        .sort()
    : [];
  const seen = new Set<string>();
  const exempt = new Set<string>();
  const findings = new Map<string, AuditFinding>();
  let statements = 0;
  let bytes = 0;
  const dbField = options.database === undefined ? undefined : `"dbname":${JSON.stringify(options.database)}`;
  for (const file of files) {
    bytes += statSync(join(logDir, file)).size;
    const lines = createInterface({ input: createReadStream(join(logDir, file), 'utf8'), crlfDelay: Infinity });
    for await (const line of lines) {
      // Cheap tests before parsing: most lines are plans, but not all of them the request role's.
      if (!line.includes('"message":"duration: ') || (dbField !== undefined && !line.includes(dbField))) continue;
      const entry = JSON.parse(line) as LogEntry;
      if (entry.user !== REQUEST_ROLE || !entry.message) continue;
      if (options.skipProbes && entry.dbname?.startsWith(PROBE_DATABASE_PREFIX)) continue;
      const start = entry.message.indexOf('{');
      if (!entry.message.includes(' plan:') || start < 0) continue;
      statements++;
      const planText = entry.message.slice(start);
      const key = createHash('sha1')
        .update(planText)
        .update('\0')
        .update(entry.context ?? '')
        .digest('base64');
      if (seen.has(key)) {
        const known = findings.get(key);
        if (known) known.times++;
        continue;
      }
      seen.add(key);
      const statement = JSON.parse(planText) as ExplainedStatement;
      if (isExempt(statement['Query Text'], entry.context)) {
        exempt.add(oneLine(statement['Query Text']));
        continue;
      }
      const violations = auditPlan(statement, options.tenantTables ?? TENANT_TABLES);
      if (violations.length > 0) findings.set(key, { queryText: statement['Query Text'], context: entry.context, violations, times: 1 });
    }
  }
  return { statements, distinctPlans: seen.size, bytes, exempt: [...exempt], findings: mergeByText([...findings.values()]) };
}

/** One finding per statement text (its plans differ with the parameters), every violation once. */
function mergeByText(findings: AuditFinding[]): AuditFinding[] {
  const byText = new Map<string, AuditFinding>();
  for (const finding of findings) {
    const text = oneLine(finding.queryText);
    const known = byText.get(text);
    if (!known) {
      byText.set(text, { ...finding, violations: [...finding.violations] });
      continue;
    }
    known.times += finding.times;
    // Another plan of the same text (other parameters): its relations not yet listed.
    for (const v of finding.violations) {
      if (!known.violations.some((k) => k.alias === v.alias)) known.violations.push(v);
    }
  }
  return [...byText.values()];
}

const READING = [
  'Reading it: each entry is a statement as the request role ran it ("in:" names the function a nested statement ran in),',
  'then each scan of a tenant table that is not on one team, and why:',
  "- only row-level security's team_id = (InitPlan …): the statement gives this relation no team_id = $n. PostgreSQL also folds",
  '  a team_id join to a sub-select, a CTE or unnest() into that clause: give the relation its own team_id = $n.',
  "- no team_id condition: nothing about the team (a row-level security policy's own sub-select shows up here too).",
  '- joined on team_id only to relations that have no team_id = …: the chain of team_id joins never meets a parameter.',
  "- a foreign key's check or action: the foreign key between tenant tables must include team_id on both sides.",
];

/** Where a nested statement ran: its function, or PostgreSQL's own foreign-key check. */
function whereItRan(finding: AuditFinding): string | undefined {
  if (/^(SELECT 1 FROM|DELETE FROM|UPDATE) (ONLY )?"[^"]+"\."[^"]+"/.test(finding.queryText)) {
    return "a foreign key's check or action, run by PostgreSQL: the foreign key must include the team";
  }
  const functions = (finding.context ?? '').split('\n').filter((line) => /^(PL\/pgSQL|SQL) function /.test(line));
  return functions.length > 0 ? functions.join(' ← ') : undefined;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The failure's text: each statement, where it ran, and each tenant scan off its team. */
export function formatFindings(result: AuditResult, maxQueryChars = 400): string {
  const lines = [
    `query audit: ${result.findings.length} statement(s) of the request role scan a tenant table without an equality on its team ` +
      '(R-TN-9; see docs/testing.md, "The query audit"):',
  ];
  result.findings.forEach((finding, i) => {
    const text = oneLine(finding.queryText);
    lines.push('', `${i + 1}. ${text.length > maxQueryChars ? `${text.slice(0, maxQueryChars)} …` : text}`);
    const where = whereItRan(finding);
    if (where) lines.push(`   in: ${where}`);
    for (const v of finding.violations)
      lines.push(`   - ${v.table}${v.alias === v.table ? '' : ` (as ${v.alias})`}, ${v.nodeType}: ${v.reason}`);
    lines.push(`   (${finding.times} plan(s) logged)`);
  });
  lines.push('', ...READING);
  return lines.join('\n');
}

/** Where the run's audit writes its full report (CI lists test/artifacts/). */
const AUDIT_REPORT = join(__dirname, '..', '..', 'artifacts', 'query-audit.txt');

/**
 * The run's audit, at the global teardown once the server has stopped: prints one line, writes
 * the report, and returns the failure to throw when a statement broke the rule.
 */
export async function auditRun(): Promise<Error | undefined> {
  const logDir = process.env[AUDIT_LOG_DIR_ENV];
  if (!logDir) return undefined;
  const started = Date.now();
  const result = await collectFindings(logDir, { skipProbes: true });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const summary =
    `query audit: ${result.statements} plans of the request role (${result.distinctPlans} distinct), ` +
    `${result.exempt.length} exempt statement(s); ${(result.bytes / 1e6).toFixed(1)} MB of log read in ${seconds} s`;
  mkdirSync(dirname(AUDIT_REPORT), { recursive: true });
  if (result.findings.length === 0) {
    writeFileSync(AUDIT_REPORT, `${summary}: every tenant scan is on its team.\n`);
    console.log(`\n${summary}: every tenant scan is on its team.`);
    return undefined;
  }
  const report = `${formatFindings(result)}\n\n${summary}.\n`;
  writeFileSync(AUDIT_REPORT, report);
  console.error(`\n${report}`);
  return new Error(
    `query audit: ${result.findings.length} statement(s) scan a tenant table without an equality on its team (listed above, and in ${AUDIT_REPORT})`,
  );
}
