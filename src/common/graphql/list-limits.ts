import {
  type FieldNode,
  type FragmentDefinitionNode,
  getNamedType,
  getNullableType,
  GraphQLError,
  type GraphQLField,
  GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLList,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { ErrorCode } from '../errors/app-error';

/** Longest list any argument may hold unless a bound says otherwise (R-OP-5). */
const DEFAULT_LIST_LIMIT = 100;

/**
 * Bounds of list arguments by path: `operation.argument[.field…]`, e.g.
 * `submitRecallFeedback.input.recalls`; list items' own lists continue the path
 * (`submitRecallFeedback.input.recalls.irrelevantResultRefs`).
 */
export type ListLimits = Readonly<Record<string, number>>;

/**
 * Checks every list in the operation's arguments — literals and variables — against its bound,
 * after the operation is parsed and validated and before it runs: a request over a bound costs
 * no SQL at all, not even the actor lookup of the auth guard (R-OP-5).
 */
export function checkListLimits(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
  variables: Readonly<Record<string, unknown>>,
  limits: ListLimits,
): void {
  const root = schema.getRootType(operation.operation);
  if (!root) return;
  for (const field of topLevelFields(operation.selectionSet, fragments)) {
    const definition = root.getFields()[field.name.value] as GraphQLField<unknown, unknown> | undefined;
    if (!definition) continue;
    for (const argument of field.arguments ?? []) {
      const type = definition.args.find((a) => a.name === argument.name.value)?.type;
      if (!type) continue;
      const value = valueOf(argument.value, variables);
      walk(value, type, `${field.name.value}.${argument.name.value}`, argument.name.value, limits);
    }
  }
}

function topLevelFields(selectionSet: SelectionSetNode, fragments: Readonly<Record<string, FragmentDefinitionNode>>): FieldNode[] {
  return selectionSet.selections.flatMap((selection) => {
    if (selection.kind === Kind.FIELD) return [selection];
    if (selection.kind === Kind.INLINE_FRAGMENT) return topLevelFields(selection.selectionSet, fragments);
    const fragment = fragments[selection.name.value];
    return fragment ? topLevelFields(fragment.selectionSet, fragments) : [];
  });
}

/** A literal as plain JS (lists and objects as arrays and records), a variable as its value. */
function valueOf(node: ValueNode, variables: Readonly<Record<string, unknown>>): unknown {
  switch (node.kind) {
    case Kind.VARIABLE:
      return variables[node.name.value];
    case Kind.LIST:
      return node.values.map((v) => valueOf(v, variables));
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((f) => [f.name.value, valueOf(f.value, variables)]));
    default:
      return null;
  }
}

function walk(value: unknown, type: GraphQLInputType, boundPath: string, fieldPath: string, limits: ListLimits): void {
  const nullable = getNullableType(type);
  if (value === null || value === undefined) return;
  if (nullable instanceof GraphQLList) {
    if (!Array.isArray(value)) return;
    const limit = limits[boundPath] ?? DEFAULT_LIST_LIMIT;
    if (value.length > limit) {
      throw new GraphQLError(`${fieldPath} holds ${value.length} items; at most ${limit} are accepted, so split the request.`, {
        // Refused before it runs, as a validation error is: a 400 (Apollo answers 500 to anything else thrown here).
        extensions: { code: ErrorCode.BAD_USER_INPUT, field: fieldPath, http: { status: 400 } },
      });
    }
    value.forEach((item, index) => walk(item, nullable.ofType, boundPath, `${fieldPath}.${index}`, limits));
    return;
  }
  const named = getNamedType(nullable);
  if (named instanceof GraphQLInputObjectType && typeof value === 'object' && !Array.isArray(value)) {
    for (const [name, field] of Object.entries(named.getFields())) {
      walk((value as Record<string, unknown>)[name], field.type, `${boundPath}.${name}`, `${fieldPath}.${name}`, limits);
    }
  }
}
