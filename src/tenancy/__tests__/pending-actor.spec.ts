import { UnauthenticatedError } from '../../common/errors/app-error';
import { ActorContext } from '../actor-context';
import { Scope } from '../scopes';
import { actorOf, allowedSpacesOf, asActorError, PendingActor } from '../pending-actor';
import type { VerifiedClaims } from '../token-verifier';

const CLAIMS: VerifiedClaims = {
  userId: '00000000-0000-4000-8000-000000000001',
  teamId: '00000000-0000-4000-8000-000000000002',
  scopes: [Scope.MEMORY_READ],
  issuedAt: 1_800_000_000,
};
const SPACE = { id: '00000000-0000-4000-8000-000000000003', generation: 2 };

function pendingActor() {
  const settled: ActorContext[] = [];
  const guardReads: VerifiedClaims[] = [];
  const actor = new PendingActor(
    CLAIMS,
    (claims) => {
      guardReads.push(claims);
      return Promise.resolve(new ActorContext(claims.userId, claims.teamId, claims.scopes, []));
    },
    (a) => settled.push(a),
  );
  return { actor, settled, guardReads };
}

describe('PendingActor (R-TN-5)', () => {
  it('R-TN-5 settles to the actor of the spaces its statement read, with the token’s user, team and scopes, and hands it on', () => {
    const { actor, settled, guardReads } = pendingActor();
    const context = actor.settle([SPACE]);
    expect(context).toEqual(new ActorContext(CLAIMS.userId, CLAIMS.teamId, CLAIMS.scopes, [SPACE]));
    expect(context.allowedGeneration(SPACE.id)).toBe(2);
    expect(settled).toEqual([context]);
    expect(guardReads).toEqual([]);
  });

  it('R-TN-5 once settled, resolving reads nothing more and gives the same actor', async () => {
    const { actor, guardReads } = pendingActor();
    const context = actor.settle([SPACE]);
    await expect(actor.resolve()).resolves.toBe(context);
    expect(actor.settle([])).toBe(context);
    expect(guardReads).toEqual([]);
  });

  it('R-TN-5 R-TN-3 resolving an unsettled caller reads it the guard’s way, once', async () => {
    const { actor, settled, guardReads } = pendingActor();
    const first = await actor.resolve();
    expect(await actor.resolve()).toBe(first);
    expect(guardReads).toEqual([CLAIMS]);
    expect(settled[0]).toBe(first);
  });

  it('R-TN-5 R-TN-10 callers asking at the same time share one guard read and go on in the order they asked', async () => {
    const guardReads: VerifiedClaims[] = [];
    let finish = (_actor: ActorContext): void => undefined;
    const actor = new PendingActor(
      CLAIMS,
      (claims) => {
        guardReads.push(claims);
        return new Promise<ActorContext>((resolve) => (finish = resolve));
      },
      () => undefined,
    );
    const order: number[] = [];
    const asked = [0, 1, 2, 3].map((n) => actor.resolve().then((resolved) => (order.push(n), resolved)));
    finish(new ActorContext(CLAIMS.userId, CLAIMS.teamId, CLAIMS.scopes, [SPACE]));
    const resolved = await Promise.all(asked);
    expect(guardReads).toEqual([CLAIMS]);
    expect(order).toEqual([0, 1, 2, 3]);
    expect(new Set(resolved).size).toBe(1);
  });

  it('R-TN-5 a failed guard read fails every caller that shared it', async () => {
    const actor = new PendingActor(
      CLAIMS,
      () => Promise.reject(new UnauthenticatedError('no')),
      () => undefined,
    );
    await expect(Promise.all([actor.resolve(), actor.resolve()])).rejects.toBeInstanceOf(UnauthenticatedError);
  });

  it('R-RT-4 RL004 from a statement that reads its actor is the guard’s UNAUTHENTICATED answer; other errors pass as they are', () => {
    const refused = asActorError(Object.assign(new Error('the token was issued before its user was deleted'), { code: 'RL004' }));
    expect(refused).toBeInstanceOf(UnauthenticatedError);
    expect((refused as Error).message).toBe("The token was issued before its user's data was deleted; get a new token.");
    const other = Object.assign(new Error('x'), { code: '40001' });
    expect(asActorError(other)).toBe(other);
  });

  it('R-TN-5 a row that read its actor carries the allowed spaces as ids and generations in the same order', () => {
    const other = { id: '00000000-0000-4000-8000-000000000004', generation: 1 };
    const row = { actor_status: 'ok' as const, actor_space_ids: [SPACE.id, other.id], actor_generations: [2, 1] };
    expect(allowedSpacesOf(row)).toEqual([SPACE, other]);
    expect(allowedSpacesOf({ ...row, actor_space_ids: [], actor_generations: [] })).toEqual([]);
  });

  it('R-TN-5 actorOf gives the guard’s actor as it is, and reads a pending actor the guard’s way', async () => {
    const guarded = new ActorContext(CLAIMS.userId, CLAIMS.teamId, CLAIMS.scopes, [SPACE]);
    await expect(actorOf(guarded)).resolves.toBe(guarded);
    const { actor, guardReads } = pendingActor();
    await expect(actorOf(actor)).resolves.toEqual(new ActorContext(CLAIMS.userId, CLAIMS.teamId, CLAIMS.scopes, []));
    expect(guardReads).toEqual([CLAIMS]);
  });
});
