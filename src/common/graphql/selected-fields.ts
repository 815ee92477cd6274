import type { GraphQLResolveInfo } from 'graphql';
import { parseResolveInfo, type ResolveTree } from 'graphql-parse-resolve-info';

/**
 * True when the query selects the field at `path` below the field being resolved, e.g.
 * `['edges', 'node', 'toolOutput']`, whatever aliases, fragments or inline fragments it uses.
 * Lets a resolver skip loading a column nobody asked for.
 */
export function selectsField(info: GraphQLResolveInfo, path: readonly string[]): boolean {
  const root = parseResolveInfo(info) as ResolveTree | null;
  let level: ResolveTree[] = root ? [root] : [];
  for (const name of path) {
    level = level.flatMap((tree) =>
      Object.values(tree.fieldsByTypeName).flatMap((fields) => Object.values(fields).filter((child) => child.name === name)),
    );
    if (level.length === 0) return false;
  }
  return true;
}
