/*
 * The hostile-neighbour bench's verdict lines (issue 53's acceptance), pure: from the figures of
 * one scenario to met / missed and one line that says why, with the numbers.
 */

/** Findings 1–4: another team's `{ me }` p95 while the attack runs. */
const ME_P95_LIMIT_MS = 250;
/** One team alone: the share of its requests answered 429 that still counts as "no 429". */
const ALONE_REFUSED_SHARE_MAX = 0.01;
/** Two teams flooding: each one's share of what both were served, "about half". */
const FAIR_SHARE_LOW = 0.4;
const FAIR_SHARE_HIGH = 0.6;
/** A third team, one request at a time: its p95 beside its p95 on an idle replica. */
const THIRD_TEAM_P95_FACTOR = 2;

export interface Verdict {
  /** null: no target applies. */
  met: boolean | null;
  line: string;
}

const ms = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(1)} ms` : 'none answered');
const percent = (value: number): string => `${(value * 100).toFixed(1)}%`;

/** Any answer that is a 500 (or coded as one) misses, whatever the rest says. */
function withServerErrors(verdict: Verdict, serverErrors: number): Verdict {
  if (serverErrors === 0) return verdict;
  return { met: false, line: `${serverErrors} answer(s) were server errors (500); ${verdict.line}` };
}

/** Findings 1–4: the bystander's `{ me }` p95 under the limit, and no 500 among the attacker's answers. */
export function bystanderVerdict(meP95Ms: number, serverErrors: number): Verdict {
  const met = meP95Ms < ME_P95_LIMIT_MS;
  return withServerErrors({ met, line: `team A { me } p95 ${ms(meP95Ms)} ${met ? '<' : '≥'} ${ME_P95_LIMIT_MS} ms` }, serverErrors);
}

/** Finding 5: every response, as bytes on the wire, within the response budget (a refusal is small). */
export function responseBytesVerdict(maxBytes: number, budgetBytes: number, serverErrors: number): Verdict {
  const met = maxBytes <= budgetBytes;
  const line = `largest response ${maxBytes.toLocaleString('en-US')} bytes ${met ? '≤' : '>'} budget ${budgetBytes.toLocaleString('en-US')} bytes`;
  return withServerErrors({ met, line }, serverErrors);
}

/** Finding 7, one team alone: (almost) nothing refused with 429. */
export function aloneVerdict(refused: number, requests: number, serverErrors: number): Verdict {
  const share = requests === 0 ? 0 : refused / requests;
  const met = requests > 0 && share <= ALONE_REFUSED_SHARE_MAX;
  const line = `team B alone: ${refused} of ${requests} requests answered 429 (${percent(share)}; at most ${percent(ALONE_REFUSED_SHARE_MAX)})`;
  return withServerErrors({ met, line }, serverErrors);
}

export interface SharedFigures {
  /** Requests served (answered ok) to each flooding team. */
  servedB: number;
  servedD: number;
  /** The third team's p95, under the floods and on the idle replica. */
  thirdP95Ms: number;
  thirdIdleP95Ms: number;
  serverErrors: number;
}

/** Finding 7, two teams flooding: each keeps about half, and a third team's p95 stays within 2× idle. */
export function sharedVerdict(f: SharedFigures): Verdict {
  const total = f.servedB + f.servedD;
  const shareB = total === 0 ? Number.NaN : f.servedB / total;
  const fair = shareB >= FAIR_SHARE_LOW && shareB <= FAIR_SHARE_HIGH;
  const limit = f.thirdIdleP95Ms * THIRD_TEAM_P95_FACTOR;
  const third = f.thirdP95Ms <= limit;
  const line =
    `served B ${f.servedB} / D ${f.servedD} (B's share ${Number.isNaN(shareB) ? '—' : percent(shareB)}, ` +
    `${percent(FAIR_SHARE_LOW)}–${percent(FAIR_SHARE_HIGH)} wanted); team C p95 ${ms(f.thirdP95Ms)} ${third ? '≤' : '>'} ` +
    `${THIRD_TEAM_P95_FACTOR}× its idle ${ms(f.thirdIdleP95Ms)}`;
  return withServerErrors({ met: fair && third, line }, f.serverErrors);
}
