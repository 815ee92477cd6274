import type { AttackerFigures, LatencyFigures, ScenarioFigures } from './figures';

/** The hostile-neighbour bench's markdown: a summary row per scenario, then the bystander's ops and the attackers. */

export interface NeighboursReport {
  generatedAt: string;
  /** The tree measured: commit, and whether it had uncommitted changes. */
  tree: string;
  environment: { node: string; cpus: number };
  settings: Record<string, number>;
  scenarios: ScenarioFigures[];
}

const ms = (value: number | undefined): string => (value === undefined || Number.isNaN(value) ? '—' : value.toFixed(1));
const triple = (f: LatencyFigures | undefined): string => (f ? `${ms(f.p50Ms)} / ${ms(f.p95Ms)} / ${ms(f.p99Ms)}` : '—');
const verdictText = (met: boolean | null): string => (met === null ? 'info' : met ? '**met**' : '**MISSED**');
const cell = (text: string): string => text.replace(/\|/g, '\\|');

function table(headers: string[], rows: string[][]): string[] {
  return [
    `| ${headers.join(' | ')} |`,
    `| ${headers.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ];
}

const answersText = (a: AttackerFigures): string =>
  Object.entries(a.answers)
    .map(([label, count]) => `${count}× ${label}`)
    .join(', ');

function summaryRow(s: ScenarioFigures): string[] {
  const who = s.underAttack ? `${s.underAttack.team} ×${s.underAttack.clients}` : '—';
  // Findings 1–5 are judged on `{ me }`; 7b on the third team's p95 over all its ops (the next column).
  const meIdle = s.idle?.ops.me;
  const meAttack = s.underAttack?.ops.me;
  const attackers = s.attackers
    .map((a) => `${a.team}: ${a.requests} in ${s.attackSeconds} s (${a.perSecond}/s); ${answersText(a)}`)
    .join('; ');
  return [
    s.id,
    s.title,
    who,
    triple(meIdle),
    triple(meAttack),
    `${ms(s.idle?.overall.p95Ms)} → ${ms(s.underAttack?.overall.p95Ms)}`,
    attackers,
    `${s.serviceCpuPercent}% / ${s.postgresCpuPercent}%`,
    `${verdictText(s.verdict.met)}: ${s.verdict.line}`,
  ];
}

function opRows(s: ScenarioFigures): string[][] {
  const idle = s.idle;
  const attack = s.underAttack;
  if (!attack) return [];
  const ops = [...new Set([...Object.keys(idle?.ops ?? {}), ...Object.keys(attack.ops)])].sort();
  const row = (op: string, i: LatencyFigures | undefined, a: LatencyFigures | undefined): string[] => [
    s.id,
    attack.team,
    op,
    i ? `${i.served}/${i.requests}` : '—',
    triple(i),
    a ? `${a.served}/${a.requests}` : '—',
    triple(a),
    a?.firstFailure ?? i?.firstFailure ?? '',
  ];
  return [...ops.map((op) => row(op, idle?.ops[op], attack.ops[op])), row('all', idle?.overall, attack.overall)];
}

const attackerRow = (s: ScenarioFigures, a: AttackerFigures): string[] => [
  s.id,
  a.team,
  String(a.clients),
  String(a.requests),
  `${a.perSecond} / ${a.servedPerSecond}`,
  `${ms(a.p50Ms)} / ${ms(a.maxMs)}`,
  `${a.maxBytes.toLocaleString('en-US')} / ${a.meanBytes.toLocaleString('en-US')}`,
  answersText(a) + (a.serverErrors > 0 ? ` — **${a.serverErrors} SERVER ERRORS (500)**` : ''),
];

/** What the set-ups noted, as a list after the summary table. */
function notesBlock(scenarios: readonly ScenarioFigures[]): string[] {
  const notes = scenarios.flatMap((sc) => sc.notes.map((note) => `- ${sc.id}: ${note}`));
  return notes.length === 0 ? [] : ['', ...notes];
}

export function formatMarkdown(report: NeighboursReport): string {
  const s = report.settings;
  const lines = [
    `Hostile neighbours, ${report.generatedAt}, tree ${report.tree}; Node ${report.environment.node}, ${report.environment.cpus} CPUs; ` +
      `idle ${s.idleMs / 1000} s and attack ${s.attackMs / 1000} s per scenario, team A ${s.bystanderRate} calls/s (one loop per op), team C ${s.thirdTeamRate} calls/s, floods ${s.floodClients} clients a team.`,
    '',
    ...table(
      [
        '#',
        'scenario',
        'bystander',
        '{ me } idle p50 / p95 / p99 ms',
        '{ me } under attack',
        'all ops p95 idle → attack',
        'attacker',
        'CPU svc / pg',
        'verdict',
      ],
      report.scenarios.map(summaryRow),
    ),
    ...notesBlock(report.scenarios),
    '',
    'The bystander per op (served/requests; p50 / p95 / p99 ms of the served):',
    '',
    ...table(['#', 'team', 'op', 'idle n', 'idle', 'attack n', 'under attack', 'first failure'], report.scenarios.flatMap(opRows)),
    '',
    'The attackers (latency of every answer; body bytes received per response):',
    '',
    ...table(
      ['#', 'team', 'clients', 'requests', 'answers/s / served/s', 'p50 / max ms', 'max / mean bytes', 'answers'],
      report.scenarios.flatMap((sc) => sc.attackers.map((a) => attackerRow(sc, a))),
    ),
  ];
  return `${lines.join('\n')}\n`;
}
