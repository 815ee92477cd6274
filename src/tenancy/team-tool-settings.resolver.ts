import type { Type } from '@nestjs/common';
import { Args, Mutation, Query, Resolver } from '@nestjs/graphql';
import type { GraphQLScalarType } from 'graphql';
import type { ActorContext } from './actor-context';
import { Actor } from './actor.decorator';
import { RequiresScope } from './requires-scope.decorator';
import { Scope } from './scopes';

/** What a team's per-tool setting offers its admins: the list, a tool's setting set, and removed. */
export interface TeamToolSettings<Setting, Stored> {
  list(actor: ActorContext): Promise<Stored[]>;
  set(actor: ActorContext, toolName: string, setting: Setting): Promise<Stored>;
  delete(actor: ActorContext, toolName: string): Promise<boolean>;
}

/** The GraphQL names of one kind of per-tool team setting. */
export interface TeamToolSettingsOperations {
  /** The stored setting's object type. */
  readonly model: Type<unknown>;
  readonly list: { readonly name: string; readonly description: string };
  /** `argument`: the setting's argument beside `toolName`, of `type`. */
  readonly set: {
    readonly name: string;
    readonly description: string;
    readonly argument: string;
    readonly type: Type<unknown> | GraphQLScalarType;
  };
  readonly delete: { readonly name: string; readonly description: string };
}

/**
 * The admin operations of a kind of per-tool team setting (R-LG-4's compaction policies, R-RC-3's
 * summary rules), for its resolver to extend: a query listing the team's settings and two
 * mutations setting and removing one tool's, each under the admin scope, each passing straight to
 * the setting's service (`settings`). The setting's argument is typed by a type parameter, so the
 * global ValidationPipe (whose whitelist keeps only fields with class-validator rules) leaves it
 * whole: the service checks every field and names it.
 */
export function TeamToolSettingsResolver<Setting, Stored>(operations: TeamToolSettingsOperations) {
  const { model } = operations;

  @Resolver({ isAbstract: true })
  abstract class TeamToolSettingsResolverHost {
    protected abstract readonly settings: TeamToolSettings<Setting, Stored>;

    @Query(() => [model], operations.list)
    @RequiresScope(Scope.ADMIN)
    list(@Actor() actor: ActorContext): Promise<Stored[]> {
      return this.settings.list(actor);
    }

    @Mutation(() => model, { name: operations.set.name, description: operations.set.description })
    @RequiresScope(Scope.ADMIN)
    set(
      @Actor() actor: ActorContext,
      @Args('toolName') toolName: string,
      @Args(operations.set.argument, { type: () => operations.set.type }) setting: Setting,
    ): Promise<Stored> {
      return this.settings.set(actor, toolName, setting);
    }

    @Mutation(() => Boolean, operations.delete)
    @RequiresScope(Scope.ADMIN)
    delete(@Actor() actor: ActorContext, @Args('toolName') toolName: string): Promise<boolean> {
      return this.settings.delete(actor, toolName);
    }
  }
  return TeamToolSettingsResolverHost;
}
