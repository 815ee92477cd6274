import type { Judge, Scenario, ScenarioPlan } from './scenario';
import type { OpTally, PhaseTally, TeamTally } from './team-load';
import { aloneVerdict, bystanderVerdict, responseBytesVerdict, sharedVerdict, type Verdict } from './verdict';

/** The plain figures of a scenario (what the JSON holds and the tables show), from its phases' tallies. */

export interface LatencyFigures {
  requests: number;
  /** Answered ok; the percentiles are theirs. */
  served: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  firstFailure?: string;
}

interface BystanderFigures {
  team: string;
  clients: number;
  seconds: number;
  ops: Record<string, LatencyFigures>;
  overall: LatencyFigures;
}

export interface AttackerFigures {
  team: string;
  clients: number;
  requests: number;
  /** Answers (of any kind) a second, over the attack's whole time. */
  perSecond: number;
  servedPerSecond: number;
  answers: Record<string, number>;
  serverErrors: number;
  refused429: number;
  served: number;
  /** Latency of every HTTP answer, whatever it said. */
  p50Ms: number;
  maxMs: number;
  /** Response body bytes as received on the wire. */
  maxBytes: number;
  meanBytes: number;
  /** The first answer of each kind but ok, cut short. */
  examples: Record<string, string>;
}

export interface ScenarioFigures {
  id: string;
  finding: number;
  title: string;
  attack: string;
  idle: BystanderFigures | null;
  underAttack: BystanderFigures | null;
  attackers: AttackerFigures[];
  attackSeconds: number;
  /** CPU of the service's process and of PostgreSQL during the attack, in percent of one core. */
  serviceCpuPercent: number;
  postgresCpuPercent: number;
  verdict: Verdict;
  notes: string[];
}

const round = (value: number, digits = 1): number => Number(value.toFixed(digits));

function latency(tally: OpTally): LatencyFigures {
  const [failure] = tally.examples;
  return {
    requests: tally.requests,
    served: tally.servedCount,
    p50Ms: round(tally.served.percentile(0.5)),
    p95Ms: round(tally.served.percentile(0.95)),
    p99Ms: round(tally.served.percentile(0.99)),
    ...(failure === undefined ? {} : { firstFailure: `${failure[0]}: ${failure[1].slice(0, 200)}` }),
  };
}

function bystanderFigures(team: TeamTally): BystanderFigures {
  return {
    team: team.team,
    clients: team.clients,
    seconds: round(team.elapsedMs / 1000),
    ops: Object.fromEntries([...team.ops].map(([op, tally]) => [op, latency(tally)])),
    overall: latency(team.overall),
  };
}

function attackerFigures(team: TeamTally): AttackerFigures {
  const all = team.overall;
  const seconds = team.elapsedMs / 1000;
  const answered = all.answered.size;
  return {
    team: team.team,
    clients: team.clients,
    requests: all.requests,
    perSecond: round(all.requests / seconds, 2),
    servedPerSecond: round(all.servedCount / seconds, 2),
    answers: Object.fromEntries([...all.answers].sort((a, b) => b[1] - a[1])),
    serverErrors: all.serverErrors,
    refused429: all.refused429,
    served: all.servedCount,
    p50Ms: round(all.answered.percentile(0.5)),
    maxMs: round(all.answered.percentile(1)),
    maxBytes: all.maxBytes,
    meanBytes: answered === 0 ? 0 : Math.round(all.totalBytes / answered),
    examples: Object.fromEntries(all.examples),
  };
}

function judge(
  kind: Judge,
  idle: BystanderFigures | null,
  underAttack: BystanderFigures | null,
  attackers: AttackerFigures[],
  budgetBytes: number,
): Verdict {
  const serverErrors = attackers.reduce((sum, a) => sum + a.serverErrors, 0);
  switch (kind) {
    case 'bystander':
      return bystanderVerdict(underAttack?.ops.me?.p95Ms ?? Number.NaN, serverErrors);
    case 'response bytes':
      return responseBytesVerdict(Math.max(0, ...attackers.map((a) => a.maxBytes)), budgetBytes, serverErrors);
    case 'alone':
      return aloneVerdict(attackers[0].refused429, attackers[0].requests, serverErrors);
    case 'shared':
      return sharedVerdict({
        servedB: attackers.find((a) => a.team === 'B')?.served ?? 0,
        servedD: attackers.find((a) => a.team === 'D')?.served ?? 0,
        thirdP95Ms: underAttack?.overall.p95Ms ?? Number.NaN,
        thirdIdleP95Ms: idle?.overall.p95Ms ?? Number.NaN,
        serverErrors,
      });
  }
}

export function scenarioFigures(
  scenario: Scenario,
  plan: ScenarioPlan,
  idle: PhaseTally | null,
  attack: PhaseTally,
  budgetBytes: number,
): ScenarioFigures {
  const idleFigures = idle?.bystander ? bystanderFigures(idle.bystander) : null;
  const underAttack = attack.bystander ? bystanderFigures(attack.bystander) : null;
  const attackers = attack.attackers.map(attackerFigures);
  const cpuPercent = (ms: number) => round((ms / attack.elapsedMs) * 100, 0);
  return {
    id: scenario.id,
    finding: scenario.finding,
    title: scenario.title,
    attack: scenario.attack,
    idle: idleFigures,
    underAttack,
    attackers,
    attackSeconds: round(Math.max(0, ...attack.attackers.map((a) => a.elapsedMs)) / 1000),
    serviceCpuPercent: cpuPercent(attack.serviceCpuMs),
    postgresCpuPercent: cpuPercent(attack.postgresCpuMs),
    verdict: judge(plan.judge, idleFigures, underAttack, attackers, budgetBytes),
    notes: plan.notes ?? [],
  };
}
