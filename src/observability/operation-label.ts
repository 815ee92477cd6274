import { Kind, type OperationDefinitionNode } from 'graphql';

/** Root fields named in a label at most; the rest are counted. */
const MAX_FIELDS = 5;

/**
 * How a trace names a GraphQL operation: its type and name, or its root fields when it has no
 * name (`query recallBlock`, `mutation recordToolResults,submitRecallFeedback`). Field names only,
 * never arguments or values.
 */
export function operationLabel(operation: OperationDefinitionNode): string {
  if (operation.name) return `${operation.operation} ${operation.name.value}`;
  const fields = operation.selectionSet.selections.map((selection) => (selection.kind === Kind.FIELD ? selection.name.value : '...'));
  const shown = [...new Set(fields)];
  const rest = shown.length > MAX_FIELDS ? `,+${shown.length - MAX_FIELDS}` : '';
  return `${operation.operation} ${shown.slice(0, MAX_FIELDS).join(',')}${rest}`;
}
