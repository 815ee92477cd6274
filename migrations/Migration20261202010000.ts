import { Migration } from '@mikro-orm/migrations';

const APP_ROLE = 'recall_ledger_app';

/** The request's team and user, each read once per statement (an InitPlan), not once per row. */
const TEAM = '(select rl_team())';
const USER = '(select rl_user())';

const userRow = (table: string, team: string, user: string): string =>
  `case when ${user} is null then exists (select 1 from users u where u.id = ${table}.user_id and u.team_id = ${team})
        else ${table}.user_id = ${user} end`;

/** Each tenant policy of Migration20261201181000 and Migration20261201190000, with the settings read by `team` and `user`. */
const policies = (team: string, user: string): Record<string, { using: string; check: string }> => {
  const same = (visible: string) => ({ using: visible, check: visible });
  return {
    teams: same(`id = ${team}`),
    users: same(`team_id = ${team}`),
    spaces: same(`team_id = ${team}`),
    space_members: same(
      `(${user} is not null and user_id = ${user}) or exists (select 1 from users u where u.id = space_members.user_id and u.team_id = ${team})`,
    ),
    conversations: same(userRow('conversations', team, user)),
    messages: same(userRow('messages', team, user)),
    message_tool_results: same(`team_id = ${team}`),
    recall_events: same(`team_id = ${team}`),
    feedback_events: same(`team_id = ${team}`),
    tool_summary_rules: same(`team_id = ${team}`),
    feature_flags: { using: `team_id is null or team_id = ${team}`, check: `team_id = ${team}` },
  };
};

/**
 * Row-level security's settings read once per statement (issue 25). `rl_team()` and `rl_user()`
 * are inlined to `current_setting(…)`, which PostgreSQL evaluates again for every row a policy
 * filter checks: a retention batch deleting 5,000 snapshots by row address checked it 5,000 times,
 * a block read and its event insert once per row read or written. As scalar subqueries
 * (`(select rl_team())`) they are InitPlans, computed once per statement and still usable as
 * index conditions. The same rows are visible and writable as before (the policies' own tests
 * run unchanged); the plans of the hot reads stay pinned by their tests.
 */
export class Migration20261202010000 extends Migration {
  override async up(): Promise<void> {
    for (const [table, { using, check }] of Object.entries(policies(TEAM, USER))) {
      this.addSql(`alter policy tenant_rows on ${table} to ${APP_ROLE} using (${using}) with check (${check});`);
    }
  }

  override async down(): Promise<void> {
    for (const [table, { using, check }] of Object.entries(policies('rl_team()', 'rl_user()'))) {
      this.addSql(`alter policy tenant_rows on ${table} to ${APP_ROLE} using (${using}) with check (${check});`);
    }
  }
}
