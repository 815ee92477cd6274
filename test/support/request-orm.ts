import { RequestContext } from '@mikro-orm/core';
import { type EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { APP_ENTITIES } from '../../src/app-entities';
import { ormOptions } from '../../src/database/orm-options';
import { withTenantScope } from '../../src/database/tenant-scope';
import { ActorContext, Scope } from '../../src/tenancy';
import { ActorRepository } from '../../src/tenancy/actor.repository';
import type { ToolResultInput } from '../../src/tool-results';
import { closedAtFileEnd, closeEach } from './file-resources';
import { createTestOrm } from './test-orm';
import { toolResultServicesFor } from './tool-results-service';

/**
 * A medium test's database as the service meets it (R-TN-8): the services under test are built
 * on `em`, the request role's (row-level security applies), and each call runs as a request
 * does, under its actor's team and user; `owner` sees every row, to arrange them and to read
 * back what was written.
 */
export interface RequestOrm {
  readonly owner: EntityManager;
  readonly em: EntityManager;
  /** Runs `work` as `actor`'s request: a request context of its own, the actor's tenant scope. */
  as<T>(actor: ActorContext, work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * A fresh database cloned from the template, with the owner's ORM and the request role's. Closed
 * at the end of the test file if the file does not close it (file-resources.ts), request role first.
 */
export function createRequestOrm(): Promise<RequestOrm> {
  return closedAtFileEnd(startRequestOrm());
}

async function startRequestOrm(): Promise<RequestOrm> {
  const db = await createTestOrm();
  const request = await MikroORM.init(ormOptions({ url: db.database.appUrl, entities: APP_ENTITIES }));
  const em = request.em.fork();
  return {
    owner: db.orm.em.fork(),
    em,
    as: (actor, work) => RequestContext.create(em, () => withTenantScope({ teamId: actor.teamId, userId: actor.userId }, work)),
    close: () => closeEach([() => request.close(true), () => db.close()]),
  };
}

/** A member's scopes: read and write memory, give feedback. */
const MEMBER_SCOPES = [Scope.MEMORY_READ, Scope.MEMORY_WRITE, Scope.FEEDBACK_WRITE];
/** An admin's: a member's and admin, who inspects and judges the team's recalls. */
export const ADMIN_SCOPES = [...MEMBER_SCOPES, Scope.ADMIN];

export interface SeededTeam {
  teamId: string;
  spaceId: string;
  /** Users of the team, each a member of its space. */
  userIds: string[];
}

/** A team arranged by the owner: one ACTIVE space, `members` users in it, the team's `flags` on. */
export async function seedTeam(
  db: RequestOrm,
  { members = 1, flags = [] }: { members?: number; flags?: string[] } = {},
): Promise<SeededTeam> {
  const [teamId, spaceId] = [crypto.randomUUID(), crypto.randomUUID()];
  const userIds = Array.from({ length: members }, () => crypto.randomUUID());
  await db.owner.execute(`insert into teams (id) values (?); insert into spaces (id, team_id, name) values (?, ?, 'space')`, [
    teamId,
    spaceId,
    teamId,
  ]);
  for (const userId of userIds) {
    await db.owner.execute(
      'insert into users (id, team_id) values (?, ?); insert into space_members (team_id, space_id, user_id) values (?, ?, ?)',
      [userId, teamId, teamId, spaceId, userId],
    );
  }
  for (const key of flags) {
    await db.owner.execute('insert into team_feature_flags (team_id, key, enabled) values (?, ?, true)', [teamId, key]);
  }
  return { teamId, spaceId, userIds };
}

/**
 * The user as the auth guard resolves it on each request: its allowed spaces (ACTIVE, a member,
 * at their current generation) read from the database now. Resolve again after changing a space.
 */
export async function actorOf(db: RequestOrm, teamId: string, userId: string, scopes = MEMBER_SCOPES): Promise<ActorContext> {
  const issuedAt = Math.floor(Date.now() / 1000);
  const record = await RequestContext.create(db.em, () => new ActorRepository(db.em).findByUserId(userId, teamId, issuedAt));
  if (record === null || record === 'deleted') throw new Error(`no user ${userId} in team ${teamId}`);
  return new ActorContext(userId, teamId, scopes, record.allowedSpaces);
}

/** Who the tenancy tests need: alice and bob, teammates in one space; mallory, of another team. */
export interface Tenants {
  alice: ActorContext;
  bob: ActorContext;
  mallory: ActorContext;
}

/** Two teams, each with `flags` on: alice and bob in the one's space, mallory alone in the other's. */
export async function seedTenants(db: RequestOrm, flags: string[] = []): Promise<Tenants> {
  const ours = await seedTeam(db, { members: 2, flags });
  const theirs = await seedTeam(db, { flags });
  const [alice, bob] = await Promise.all(ours.userIds.map((id) => actorOf(db, ours.teamId, id)));
  return { alice, bob, mallory: await actorOf(db, theirs.teamId, theirs.userIds[0]) };
}

/** A tool call to record; unless given, `query_site_data` with an empty input and output, dated now. */
export type ToolCall = Partial<Pick<ToolResultInput, 'toolName' | 'toolInput' | 'toolOutput' | 'createdAt'>>;

/**
 * Records the calls through the real write path as `actor`, in a conversation of its first
 * allowed space (a new one unless given); their snapshot ids, in order.
 */
export async function recordCalls(
  db: RequestOrm,
  actor: ActorContext,
  calls: ToolCall[],
  conversationId: string = crypto.randomUUID(),
): Promise<string[]> {
  const items = calls.map((call) => ({
    spaceId: actor.allowedSpaces[0].id,
    conversationId,
    messageId: crypto.randomUUID(),
    toolUseId: `toolu_${crypto.randomUUID()}`,
    toolName: 'query_site_data',
    toolInput: {},
    toolOutput: {},
    ...call,
  }));
  const outcome = await db.as(actor, () => toolResultServicesFor(db.em).writer.record(actor, items));
  return outcome.snapshots.map((s) => s.id);
}

/** A time `days` days before now (imports may date snapshots back to the retention window). */
export const daysAgo = (days: number, hours = 0) => new Date(Date.now() - days * 86_400_000 - hours * 3_600_000);

/** The block line a snapshot reads as: `- <its UTC date> <call>: <its stored one-line summary>`, from its row. */
export async function storedLine(db: RequestOrm, snapshotId: string, call: string): Promise<string> {
  const [row] = await db.owner.execute<{ day: string; summary_oneliner: string }[]>(
    `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, summary_oneliner from message_tool_results where id = ?`,
    [snapshotId],
  );
  return `- ${row.day} ${call}: ${row.summary_oneliner}`;
}

/** A stored recall event's account of itself, as the owner reads it back (null: none with that id). */
export async function recallEventRow(db: RequestOrm, id: string): Promise<Record<string, unknown> | null> {
  const rows = await db.owner.execute(
    `select team_id, profile_id, space_id, space_generation, query_fingerprint, query_text, contract_version, ranking_version, fusion_mode,
            search_freshness, results, tool_names, source
       from recall_events where id = ?`,
    [id],
  );
  return rows[0] ?? null;
}

/** How many recall events match a condition on recall_events. */
export const recallEventCount = async (db: RequestOrm, where: string, params: unknown[]) =>
  Number((await db.owner.execute<{ n: string }[]>(`select count(*) as n from recall_events where ${where}`, params))[0].n);
