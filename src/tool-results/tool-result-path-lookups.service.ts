import { Injectable } from '@nestjs/common';
import { type ActorContext, type ActorOrPending, asActorError, PendingActor } from '../tenancy';
import type { JsonSelection, PathLookup } from './path-value';
import { snapshotScopeOf } from './snapshot-scope';
import { ToolResultJsonPathRepository } from './tool-result-json-path.repository';

/** JSONPath and dotted-path reads of a snapshot's payload, evaluated in PostgreSQL (R-LG-2), for Lookup. */
@Injectable()
export class ToolResultPathLookups {
  constructor(private readonly jsonPaths: ToolResultJsonPathRepository) {}

  /** What a selection picks in the actor's snapshot, evaluated in PostgreSQL; null: no such snapshot. */
  findJsonPathValue(actor: ActorContext, memId: string, selection: JsonSelection, maxChars: number): Promise<PathLookup | null> {
    return this.jsonPaths.findJsonPathValue({ ...snapshotScopeOf(actor), teamId: actor.teamId }, memId, selection, maxChars);
  }

  /**
   * `findJsonPathValue` of a single value, the caller's actor read by the same statement when it is
   * a `PendingActor` (one round trip for the request); a new user is provisioned and read the guard's way.
   */
  async findJsonPathValueAs(
    caller: ActorOrPending,
    memId: string,
    selection: Exclude<JsonSelection, { kind: 'nodes' }>,
    maxChars: number,
  ): Promise<PathLookup | null> {
    if (!(caller instanceof PendingActor)) return this.findJsonPathValue(caller, memId, selection, maxChars);
    const read = await this.jsonPaths.findPathValueForToken(caller.claims, memId, selection, maxChars).catch((error: unknown) => {
      throw asActorError(error);
    });
    if (read === 'unresolved') return this.findJsonPathValue(await caller.resolve(), memId, selection, maxChars);
    caller.settle(read.allowedSpaces);
    return read.lookup;
  }

  /** The actor's snapshot's payload as JSON text when it has at most `maxChars` characters, and its size; null: no such snapshot. */
  findJsonDocument(actor: ActorContext, memId: string, maxChars: number): Promise<{ sizeChars: number; documentText?: string } | null> {
    return this.jsonPaths.findJsonDocument(snapshotScopeOf(actor), memId, maxChars);
  }
}
