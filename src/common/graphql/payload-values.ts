import {
  type FieldNode,
  type FragmentDefinitionNode,
  getArgumentValues,
  getNamedType,
  GraphQLError,
  type GraphQLField,
  type GraphQLNamedType,
  GraphQLObjectType,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { ErrorCode } from '../errors/app-error';

/** Where an API's payloads are and what sizes the lists that hold them, as `Type.field` coordinates. */
export interface PayloadSelections {
  /** Fields whose values are payloads (megabytes each), e.g. `ToolResultSnapshot.toolOutput`. */
  readonly payloadFields: readonly string[];
  /**
   * Fields returning several items, by the argument that says how many: `Query.toolResultHistory` →
   * `first`. A number argument counts as that many items (its default when not given), a list
   * argument as its length.
   */
  readonly listSizes: Readonly<Record<string, string>>;
}

/**
 * How many payload values the operation can return at most: for every selected payload field, the
 * product of the list sizes above it, summed over aliases and fragments. Known before it runs, from
 * the document and the variables alone.
 */
export function countPayloadValues(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
  variables: Readonly<Record<string, unknown>>,
  selections: PayloadSelections,
): number {
  const root = schema.getRootType(operation.operation);
  if (!root) return 0;
  const payloadFields = new Set(selections.payloadFields);
  // Per item of the enclosing lists; memoized by selection set, so a fragment spread many times
  // (even fragments spreading fragments) is counted once: linear in the document, not its expansion.
  const counted = new Map<SelectionSetNode, number>();
  const count = (selectionSet: SelectionSetNode, parent: GraphQLNamedType): number => {
    const known = counted.get(selectionSet);
    if (known !== undefined) return known;
    let total = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
        if (type) total += count(selection.selectionSet, type);
      } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments[selection.name.value];
        const type = fragment && schema.getType(fragment.typeCondition.name.value);
        if (fragment && type) total += count(fragment.selectionSet, type);
      } else if (parent instanceof GraphQLObjectType) {
        const definition = parent.getFields()[selection.name.value] as GraphQLField<unknown, unknown> | undefined;
        if (!definition) continue;
        const coordinate = `${parent.name}.${selection.name.value}`;
        if (payloadFields.has(coordinate)) total += 1;
        if (selection.selectionSet) {
          const items = itemsOf(definition, selection, variables, selections.listSizes[coordinate]);
          total += items * count(selection.selectionSet, getNamedType(definition.type));
        }
      }
    }
    counted.set(selectionSet, total);
    return total;
  };
  // Fragments cannot spread themselves (validation ran before), so the recursion ends.
  return count(operation.selectionSet, root);
}

/** The number of items a sized field returns per the request; 1 for any other field. */
function itemsOf(
  definition: GraphQLField<unknown, unknown>,
  node: FieldNode,
  variables: Readonly<Record<string, unknown>>,
  sizeArgument: string | undefined,
): number {
  if (sizeArgument === undefined) return 1;
  let value: unknown;
  try {
    value = getArgumentValues(definition, node, variables)[sizeArgument];
  } catch {
    // A value that does not coerce is refused when the operation runs; count nothing for it here.
    return 0;
  }
  if (Array.isArray(value)) return value.length;
  return typeof value === 'number' && value > 0 ? value : 0;
}

/**
 * Refuses, before any SQL, an operation that could select more payload values than `maxValues`
 * (GRAPHQL_MAX_PAYLOAD_VALUES): three aliases of a 100-item list with `toolOutput` would build
 * hundreds of megabytes in one response.
 */
export function checkPayloadValues(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
  variables: Readonly<Record<string, unknown>>,
  selections: PayloadSelections,
  maxValues: number,
): void {
  const requestedValues = countPayloadValues(schema, operation, fragments, variables, selections);
  if (requestedValues <= maxValues) return;
  throw new GraphQLError(
    `This operation selects up to ${requestedValues} payload values (toolInput/toolOutput × list sizes); at most ${maxValues} are served per request. ` +
      'Ask for fewer items (first/limit), use fewer aliases, or leave out toolOutput/toolInput and read each result by mem id with recallToolResult.',
    {
      extensions: {
        code: ErrorCode.RESPONSE_TOO_LARGE,
        limit: 'GRAPHQL_MAX_PAYLOAD_VALUES',
        maxValues,
        requestedValues,
        // Thrown before execution, Apollo would answer 500; like every other GraphQL error this is
        // a 200. Apollo takes `http` out of the extensions.
        http: { status: 200 },
      },
    },
  );
}
