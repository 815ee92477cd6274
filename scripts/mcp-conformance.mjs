// CI gate: runs the MCP project's own conformance suite (@modelcontextprotocol/conformance) against
// the built service's `POST /mcp`.
//
// The suite has no way to send an Authorization header, and /mcp requires a bearer token, so the
// suite talks to a small local proxy that adds one and forwards everything else as it came —
// the client's own Host and Origin included, so the DNS-rebinding scenario's foreign Host reaches
// the service. The service runs on throwaway data (a temp dir, an embedded PostgreSQL on a free
// port, a random JWT secret) that is removed at the end, also on failure or Ctrl-C.
//
//   npm run build && npm run mcp:conformance                 the default scenarios
//   npm run mcp:conformance -- tools-call-error ...          other scenarios (`npx conformance list --server`)
//
// With DATABASE_URL set, the service uses that database instead of an embedded one.
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { SignJWT } from 'jose';

const ROOT = resolve(import.meta.dirname, '..');
const MAIN = join(ROOT, 'dist', 'src', 'main.js');
const BIN = join(ROOT, 'node_modules', '.bin');

const DEFAULT_SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];
const SCOPES = ['memory:read', 'memory:write', 'feedback:write', 'admin'];

/** The embedded PostgreSQL's first start (initdb, then the migrations) takes 10–20 s; leave room on a slow runner. */
const READY_TIMEOUT_MS = 90_000;
/** Above the service's own SHUTDOWN_GRACE_MS (10 s by default), so it gets to stop its database. */
const STOP_TIMEOUT_MS = 20_000;
/** A scenario takes about a second; one hanging on an unanswered request must not hold CI for long. */
const SCENARIO_TIMEOUT_MS = 120_000;

/**
 * Headers that describe one connection, not the message (RFC 9110 §7.6.1): each hop sets its own,
 * so the proxy drops them and lets Node frame both legs. Everything else is forwarded unchanged.
 */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);
/** From the client's request also any Authorization of its own: the proxy's token replaces it. */
const REQUEST_DROPPED = new Set([...HOP_BY_HOP, 'authorization']);

const started = Date.now();
const scenarios = process.argv.length > 2 ? process.argv.slice(2) : DEFAULT_SCENARIOS;
/** Everything that must be undone, filled in as it is set up; see cleanUp(). */
const state = { dir: undefined, service: undefined, serviceExit: undefined, proxy: undefined, runner: undefined };

async function main() {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} not found: build the service first (npm run build).`);

  state.dir = mkdtempSync(join(tmpdir(), 'rl-mcp-conformance-'));
  // As root, the embedded PostgreSQL runs as a `postgres` user, which must reach its data dir inside.
  chmodSync(state.dir, 0o755);

  const secret = randomBytes(48).toString('base64url');
  const servicePort = await freePort();
  await startService(servicePort, secret);
  await waitForReady(servicePort);

  // A user and team no one has used: the service provisions both on their first request (R-TN-3).
  const token = await signToken({ userId: randomUUID(), teamId: randomUUID(), secret });
  const proxyPort = await startProxy(servicePort, token);
  // `localhost`, not 127.0.0.1: the proxy listens where `localhost` resolves first, and the
  // rebinding scenario requires a localhost URL.
  const url = `http://localhost:${proxyPort}/mcp`;
  console.log(`== service on port ${servicePort}, conformance suite through the token-adding proxy at ${url}`);

  const results = [];
  for (const scenario of scenarios) {
    console.log(`\n== scenario ${scenario}`);
    results.push({ scenario, ...(await runScenario(url, scenario)) });
  }

  console.log('\n== MCP conformance summary');
  for (const r of results) {
    console.log(`${r.passed ? 'pass' : 'FAIL'}  ${r.scenario.padEnd(30)} ${r.counts}`);
  }
  const failed = results.filter((r) => !r.passed).length;
  console.log(`${results.length - failed} of ${results.length} scenarios passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return failed === 0 ? 0 : 1;
}

/** A port free right now on this machine (the OS picks it); taken again a moment later by the service. */
function freePort() {
  return new Promise((resolvePort, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, () => {
      const { port } = probe.address();
      probe.close(() => resolvePort(port));
    });
  });
}

/**
 * `node dist/src/main.js` in development mode, configured only by what is set here: the caller's
 * own settings (AUTH_JWKS_URL, ALLOWED_HOSTS, …) would change what the suite tests.
 */
async function startService(port, secret) {
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
    NODE_ENV: 'development',
    PORT: String(port),
    DATA_DIR: join(state.dir, 'data'),
    AUTH_JWT_SECRET: secret,
    LOG_LEVEL: 'warn',
    RETENTION_ENABLED: 'false',
    // The suite never loads the console; this way a `tsc`-only build (no dist/admin-console) runs too.
    ADMIN_CONSOLE_ENABLED: 'false',
  };
  if (process.env.DATABASE_URL) {
    // An existing database: note the run leaves its test user and team there. Without
    // DATABASE_APP_URL/DATABASE_APP_PASSWORD a development-mode service sets the request role's
    // password to one kept in its (throwaway) DATA_DIR.
    env.DATABASE_URL = process.env.DATABASE_URL;
    for (const name of ['DATABASE_APP_URL', 'DATABASE_APP_PASSWORD']) {
      if (process.env[name]) env[name] = process.env[name];
    }
  } else {
    env.EMBEDDED_PG_DIR = join(state.dir, 'pg');
    env.EMBEDDED_PG_PORT = String(await freePort());
  }

  // process.execPath is the Node.js 24 from node_modules/.bin that npm scripts run.
  const service = spawn(process.execPath, [MAIN], { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] });
  state.service = service;
  state.serviceExit = new Promise((resolveExit) => service.once('exit', (code, signal) => resolveExit({ code, signal })));
}

/** Polls the readiness route (the database answers) until it says 200, the service dies, or time runs out. */
async function waitForReady(port) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let exited;
  void state.serviceExit.then((how) => (exited = how));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`The service exited (${exited.signal ?? `code ${exited.code}`}) before it was ready; its log is above.`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(2000) });
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((wake) => setTimeout(wake, 250));
  }
  throw new Error(`The service was not ready within ${READY_TIMEOUT_MS / 1000} s (GET /health/ready).`);
}

/** The claims the service's TokenVerifier reads: `sub` (user), `tid` (team), `scope`; HS256; an hour to live. */
function signToken({ userId, teamId, secret }) {
  return new SignJWT({ tid: teamId, scope: SCOPES.join(' ') })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(secret));
}

/** The proxy: every request to the service as it came, plus `Authorization: Bearer <token>`; bodies streamed both ways. */
function startProxy(servicePort, token) {
  const proxy = createServer((req, res) => {
    const headers = [...withoutHeaders(req.rawHeaders, REQUEST_DROPPED), 'Authorization', `Bearer ${token}`];
    // Node sends a Host header given in `headers` instead of its own: the client's reaches the service.
    const upstream = request({ host: '127.0.0.1', port: servicePort, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode, answer.statusMessage, withoutHeaders(answer.rawHeaders, HOP_BY_HOP));
      answer.pipe(res);
    });
    upstream.on('error', (error) => {
      if (res.headersSent) return res.destroy(error);
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: the service did not answer: ${error.message}\n`);
    });
    req.pipe(upstream);
  });
  state.proxy = proxy;
  return new Promise((resolvePort, reject) => {
    proxy.once('error', reject);
    proxy.listen(0, 'localhost', () => resolvePort(proxy.address().port));
  });
}

/** rawHeaders ([name, value, name, value, …]) without the pairs whose name is in `names` (lower case). */
function withoutHeaders(raw, names) {
  const kept = [];
  for (let i = 0; i < raw.length; i += 2) {
    if (!names.has(raw[i].toLowerCase())) kept.push(raw[i], raw[i + 1]);
  }
  return kept;
}

/** One `conformance server` run; its output goes to ours. Passed means it exited 0 (no failed check). */
async function runScenario(url, scenario) {
  const outputDir = join(state.dir, 'results', scenario);
  mkdirSync(outputDir, { recursive: true });
  // node_modules/.bin first on the PATH, whatever PATH the script was started with: spawn looks the
  // bin up there (by name, so knip sees the devDependency used), and the bin's `#!/usr/bin/env node`
  // must find Node.js >= 22 — the Node 24 there, or else the one running this script.
  const path = [BIN, dirname(process.execPath), process.env.PATH].join(delimiter);
  const runner = spawn('conformance', ['server', '--url', url, '--scenario', scenario, '-o', outputDir], {
    cwd: ROOT,
    env: { ...process.env, PATH: path },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  state.runner = runner;
  const timer = setTimeout(() => {
    console.error(`scenario ${scenario} still running after ${SCENARIO_TIMEOUT_MS / 1000} s; stopping it`);
    runner.kill('SIGTERM');
  }, SCENARIO_TIMEOUT_MS);
  const code = await new Promise((resolveCode) => {
    runner.once('error', (error) => {
      console.error(`could not run conformance from ${BIN}: ${error.message}`);
      resolveCode(-1);
    });
    runner.once('exit', (exitCode) => resolveCode(exitCode));
  });
  clearTimeout(timer);
  state.runner = undefined;
  return { passed: code === 0, counts: checkCounts(outputDir) };
}

/** "N passed, N failed, N warnings" from the run's checks.json (written under <outputDir>/server-<scenario>-<time>/). */
function checkCounts(outputDir) {
  try {
    const [folder] = readdirSync(outputDir);
    const checks = JSON.parse(readFileSync(join(outputDir, folder, 'checks.json'), 'utf8'));
    const count = (status) => checks.filter((c) => c.status === status).length;
    return `${count('SUCCESS')} passed, ${count('FAILURE')} failed, ${count('WARNING')} warnings`;
  } catch {
    return '(no results written)';
  }
}

let cleaning;
/** Stops the suite, the proxy and the service (SIGTERM, then waits), and removes the temp dir. Runs once. */
function cleanUp() {
  cleaning ??= (async () => {
    state.runner?.kill('SIGTERM');
    if (state.proxy) {
      state.proxy.closeAllConnections();
      await new Promise((done) => state.proxy.close(() => done()));
    }
    if (state.service && state.service.exitCode === null && state.service.signalCode === null) {
      state.service.kill('SIGTERM');
      const timedOut = new Promise((done) => setTimeout(() => done('timeout'), STOP_TIMEOUT_MS).unref());
      if ((await Promise.race([state.serviceExit, timedOut])) === 'timeout') {
        console.error(`The service did not stop within ${STOP_TIMEOUT_MS / 1000} s of SIGTERM; killing it.`);
        state.service.kill('SIGKILL');
        await state.serviceExit;
      }
    }
    // The service has stopped its embedded PostgreSQL by now (unless it had to be killed), so
    // nothing uses the folder any more.
    if (state.dir) rmSync(state.dir, { recursive: true, force: true });
  })();
  return cleaning;
}

// Ctrl-C (or CI cancelling the job): clean up, then exit as a signal would.
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
]) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the service and cleaning up`);
    void cleanUp().finally(() => process.exit(code));
  });
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (error) {
  console.error(`mcp-conformance: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await cleanUp();
}
process.exit(exitCode);
