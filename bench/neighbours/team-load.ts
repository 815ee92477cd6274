import { cpuNow } from '../cpu';
import type { GraphqlClient } from '../graphql-client';
import { LatencyRecorder } from '../load-runner';
import { classifyAnswer } from './answers';
import { withMissedCalls } from './missed-calls';

/*
 * Teams' client loops for the hostile-neighbour bench: each sends its team's calls over its own
 * keep-alive connections, and every answer is timed and classified (answers.ts).
 */

/** One HTTP request a loop sends: `op` names it in the tallies. */
export interface Call {
  op: string;
  path: string;
  body: string | Buffer;
  token?: string;
  headers?: Record<string, string>;
}

/** A team's part in a phase: `clients` loops, each sending `next(worker, seq)` one after another. */
export interface TeamLoad {
  team: string;
  client: GraphqlClient;
  clients: number;
  next(worker: number, seq: number): Call;
  /**
   * A bystander's pace: each loop sends a call every `intervalMs` (at once when the last one took
   * longer), and its served latencies count the calls a slow answer kept it from sending
   * (missed-calls.ts). Without it: as fast as answers come, each latency counted once.
   */
  intervalMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** After a connection failed: a pause, so a dead or refusing service is not called in a tight loop. */
const NETWORK_ERROR_PAUSE_MS = 100;
const RECORDER_CAPACITY = 200_000;

/** One op's answers in one phase. */
export class OpTally {
  requests = 0;
  /** Answered `ok` (the request did what it asked). */
  servedCount = 0;
  /** Their latencies, with the calls a paced loop missed meanwhile (missed-calls.ts). */
  readonly served = new LatencyRecorder(RECORDER_CAPACITY);
  /** Every HTTP answer, whatever it said (network errors are not answers). */
  readonly answered = new LatencyRecorder(RECORDER_CAPACITY);
  readonly answers = new Map<string, number>();
  serverErrors = 0;
  refused429 = 0;
  maxBytes = 0;
  totalBytes = 0;
  /** The first answer of each kind but `ok`, cut short: what the label stands for. */
  readonly examples = new Map<string, string>();

  record(label: string, serverError: boolean, ms: number, bytes: number | null, detail: string, intervalMs?: number): void {
    this.requests++;
    this.answers.set(label, (this.answers.get(label) ?? 0) + 1);
    if (serverError) this.serverErrors++;
    if (label.startsWith('HTTP 429')) this.refused429++;
    if (label === 'ok') {
      this.servedCount++;
      for (const value of withMissedCalls(ms, intervalMs)) this.served.record(value);
    } else if (!this.examples.has(label)) this.examples.set(label, detail.slice(0, 300));
    if (bytes !== null) {
      this.answered.record(ms);
      this.maxBytes = Math.max(this.maxBytes, bytes);
      this.totalBytes += bytes;
    }
  }
}

/** A team's tallies by op and over all its ops, and how long its loops ran. */
export interface TeamTally {
  team: string;
  clients: number;
  ops: Map<string, OpTally>;
  overall: OpTally;
  elapsedMs: number;
}

/** Sends `load`'s calls from one loop until `end()` (Infinity while the phase runs) has passed. */
async function clientLoop(load: TeamLoad, worker: number, team: TeamTally, end: () => number): Promise<void> {
  let due = performance.now();
  for (let seq = 0; ; seq++) {
    if (due > performance.now()) await sleep(due - performance.now());
    const sent = performance.now();
    if (sent >= end()) return;
    due = sent + (load.intervalMs ?? 0);
    const call = load.next(worker, seq);
    const op = team.ops.get(call.op) ?? new OpTally();
    team.ops.set(call.op, op);
    const record = (label: string, serverError: boolean, bytes: number | null, detail: string) => {
      const ms = performance.now() - sent;
      for (const tally of [op, team.overall]) tally.record(label, serverError, ms, bytes, detail, load.intervalMs);
    };
    try {
      const options = { token: call.token, headers: call.headers, retryStaleSocket: true };
      const answer = await load.client.request(call.path, call.body, options);
      const { label, serverError } = classifyAnswer(answer);
      record(label, serverError, answer.bytes, answer.text);
      // A refused client waits as told, as a well-behaved one does; a hostile one gains nothing by not waiting.
      if (answer.status === 429) await sleep((answer.retryAfterSeconds ?? 1) * 1000);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
      record(classifyAnswer({ networkError: code }).label, false, null, code);
      await sleep(NETWORK_ERROR_PAUSE_MS);
    }
  }
}

async function runTeam(load: TeamLoad, end: () => number): Promise<TeamTally> {
  const team: TeamTally = { team: load.team, clients: load.clients, ops: new Map(), overall: new OpTally(), elapsedMs: 0 };
  const started = performance.now();
  await Promise.all(Array.from({ length: load.clients }, (_, worker) => clientLoop(load, worker, team, end)));
  team.elapsedMs = performance.now() - started;
  return team;
}

export interface PhaseTally {
  attackers: TeamTally[];
  bystander: TeamTally | null;
  elapsedMs: number;
  /** CPU the service's process and PostgreSQL spent during the phase, in ms. */
  serviceCpuMs: number;
  postgresCpuMs: number;
}

/**
 * The attackers send for `durationMs` (a call in flight then finishes); the bystander sends until
 * the last attacker's call has answered, so it is measured for as long as the attack lasts. With
 * no attacker, the bystander alone runs for `durationMs` (the idle figures).
 */
export async function runPhase(attackers: readonly TeamLoad[], bystander: TeamLoad | null, durationMs: number): Promise<PhaseTally> {
  const cpuBefore = cpuNow();
  const started = performance.now();
  const deadline = started + durationMs;
  const alone = attackers.length === 0;
  let attackEnd = alone ? deadline : Number.POSITIVE_INFINITY;
  const attack = Promise.all(attackers.map((load) => runTeam(load, () => deadline))).finally(() => {
    if (!alone) attackEnd = performance.now();
  });
  const watched = bystander && runTeam(bystander, () => attackEnd);
  const [attackerTallies, bystanderTally] = await Promise.all([attack, watched]);
  const cpuAfter = cpuNow();
  return {
    attackers: attackerTallies,
    bystander: bystanderTally,
    elapsedMs: performance.now() - started,
    serviceCpuMs: cpuAfter.serviceMs - cpuBefore.serviceMs,
    postgresCpuMs: cpuAfter.postgresMs - cpuBefore.postgresMs,
  };
}
