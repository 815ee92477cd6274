import { Migration } from '@mikro-orm/migrations';

const TEAM = '(select rl_team())';
const USER = '(select rl_user())';

/** A row of one user of the team: with the request's user set, that user's only; team-wide (user unset), the team's. */
const ofUser = (column: string) => `team_id = ${TEAM} and case when ${USER} is null then true else ${column} = ${USER} end`;

/**
 * Row-level security goes user-deep on recall and feedback events (issue 54), as on snapshots: with
 * the request's user set, a member sees and writes only the recall events of its own profile and
 * the feedback events it authored. Team-wide work — an admin's inspection and judging, the sweep,
 * a user's deletion — runs with the user unset.
 */
export class Migration20261207120000_user_deep_events extends Migration {
  override up(): void {
    for (const [table, column] of [
      ['recall_events', 'profile_id'],
      ['feedback_events', 'actor_id'],
    ]) {
      this.addSql(`alter policy tenant_rows on ${table} using (${ofUser(column)}) with check (${ofUser(column)});`);
    }
  }

  override down(): void {
    for (const table of ['recall_events', 'feedback_events']) {
      this.addSql(`alter policy tenant_rows on ${table} using (team_id = ${TEAM}) with check (team_id = ${TEAM});`);
    }
  }
}
