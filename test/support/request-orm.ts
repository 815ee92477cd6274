import { RequestContext } from '@mikro-orm/core';
import { type EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { APP_ENTITIES } from '../../src/app-entities';
import { ormOptions } from '../../src/database/orm-options';
import { withTenantScope } from '../../src/database/tenant-scope';
import { ActorContext, Scope } from '../../src/tenancy';
import { ActorRepository } from '../../src/tenancy/actor.repository';
import { createTestOrm } from './test-orm';

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

/** A fresh database cloned from the template, with the owner's ORM and the request role's. */
export async function createRequestOrm(): Promise<RequestOrm> {
  const db = await createTestOrm();
  const request = await MikroORM.init(ormOptions({ url: db.database.appUrl, entities: APP_ENTITIES }));
  const em = request.em.fork();
  return {
    owner: db.orm.em.fork(),
    em,
    as: (actor, work) => RequestContext.create(em, () => withTenantScope({ teamId: actor.teamId, userId: actor.userId }, work)),
    async close() {
      await request.close(true);
      await db.close();
    },
  };
}

/** A member's scopes: read and write memory, give feedback. */
const MEMBER_SCOPES = [Scope.MEMORY_READ, Scope.MEMORY_WRITE, Scope.FEEDBACK_WRITE];

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
    await db.owner.execute('insert into users (id, team_id) values (?, ?); insert into space_members (space_id, user_id) values (?, ?)', [
      userId,
      teamId,
      spaceId,
      userId,
    ]);
  }
  for (const key of flags) {
    await db.owner.execute('insert into feature_flags (id, key, team_id, enabled) values (?, ?, ?, true)', [
      crypto.randomUUID(),
      key,
      teamId,
    ]);
  }
  return { teamId, spaceId, userIds };
}

/**
 * The user as the auth guard resolves it on each request: its allowed spaces (ACTIVE, a member,
 * at their current generation) read from the database now. Resolve again after changing a space.
 */
export async function actorOf(db: RequestOrm, teamId: string, userId: string, scopes = MEMBER_SCOPES): Promise<ActorContext> {
  const record = await RequestContext.create(db.em, () => new ActorRepository(db.em).findByUserId(userId, teamId));
  if (record === null) throw new Error(`no user ${userId} in team ${teamId}`);
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
