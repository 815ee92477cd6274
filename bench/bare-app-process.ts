import 'reflect-metadata';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { Injectable, Module, type NestApplicationOptions } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Args, Context, Field, GraphQLModule, ID, ObjectType, Query, Resolver } from '@nestjs/graphql';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Pool } from 'pg';
import { ACTOR_STATEMENT } from './ops/actor-statement';
import { RAW_PATH } from './ops/raw-path-statement';

/*
 * The bare stack under the floor row (issue 40): the same framework with nothing of ours — Nest,
 * Apollo Server through @nestjs/apollo, and one `pg` SELECT (the statement our auth guard runs) —
 * answering `{ me { userId teamId } }` (and the jsonPath row's `#>` read, `pathValue`). No token verification, guard, bulkheads, logging, metrics,
 * validation, complexity limits or ORM: what the floor costs above this is ours. Forked by
 * harness.ts like the service (its CPU is its own); argv[2] is the adapter: `express` (the one the
 * service runs on) or `fastify`. It answers `ready` with its port over IPC and exits on `close`.
 */

const adapter = process.argv[2] === 'fastify' ? 'fastify' : 'express';
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_MAX ?? 20) });

@ObjectType()
class Me {
  @Field(() => ID) userId!: string;
  @Field(() => ID) teamId!: string;
}

interface RequestLike {
  headers: Record<string, string | string[] | undefined>;
}

type GraphqlContext = { req?: RequestLike; request?: RequestLike };

@Injectable()
@Resolver(() => Me)
class MeResolver {
  @Query(() => Me)
  async me(@Context() context: GraphqlContext): Promise<Me> {
    const claims = unverifiedClaims(context);
    await pool.query(ACTOR_STATEMENT, [claims.sub, claims.tid, Math.floor(Date.now() / 1000)]);
    return { userId: claims.sub, teamId: claims.tid };
  }

  /**
   * A value of a snapshot's payload at a dotted path, by the raw `#>` statement (the jsonPath row's
   * raw side) with the token's user and team and the space the caller names; JSON text, as the
   * service answers it.
   */
  @Query(() => String, { nullable: true })
  async pathValue(
    @Args('memId') memId: string,
    @Args('path') path: string,
    @Args('spaceId') spaceId: string,
    @Context() context: GraphqlContext,
  ): Promise<string | null> {
    const claims = unverifiedClaims(context);
    const result = await pool.query<{ value: unknown }>(RAW_PATH, [claims.sub, memId, path.split('.'), [spaceId], claims.tid]);
    const value = result.rows[0]?.value;
    return value === undefined ? null : JSON.stringify(value);
  }
}

/** The bearer token's claims, read without verifying them (verification is ours, not the framework's). */
function unverifiedClaims(context: GraphqlContext): { sub: string; tid: string } {
  const authorization = String((context.req ?? context.request)?.headers.authorization ?? '');
  return JSON.parse(Buffer.from(authorization.split('.')[1] ?? '', 'base64url').toString()) as { sub: string; tid: string };
}

@Module({
  imports: [
    GraphQLModule.forRoot<ApolloDriverConfig>({
      driver: ApolloDriver,
      autoSchemaFile: true,
      playground: false,
      introspection: false,
      // Express hands the context function { req, res }; Fastify hands it (request, reply).
      context: (first: { req?: RequestLike } & RequestLike, reply: unknown) => (first.req ? first : { req: first, reply }),
    }),
  ],
  providers: [MeResolver],
})
class BareModule {}

async function main(): Promise<void> {
  const options: NestApplicationOptions = { logger: ['error'] };
  const app =
    adapter === 'fastify'
      ? await NestFactory.create(BareModule, new FastifyAdapter(), options)
      : await NestFactory.create(BareModule, options);
  await app.listen(0, '127.0.0.1');
  const { port } = (app.getHttpServer() as Server).address() as AddressInfo;
  const close = () => void Promise.all([app.close(), pool.end()]).finally(() => process.exit(0));
  process.on('message', (message: { type: string }) => {
    if (message.type === 'close') close();
  });
  process.on('disconnect', close);
  process.send?.({ type: 'ready', port });
}

void main().catch((error: unknown) => {
  process.send?.({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
