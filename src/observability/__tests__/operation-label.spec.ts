import { type OperationDefinitionNode, parse } from 'graphql';
import { operationLabel } from '../operation-label';

const label = (document: string) => operationLabel(parse(document).definitions[0] as OperationDefinitionNode);

describe('operationLabel (R-OP-8: how a trace names a GraphQL operation)', () => {
  it('R-OP-8 a named operation by its type and name', () => {
    expect(label('query Block($c: ID!) { recallBlock(conversationId: $c) { text } }')).toBe('query Block');
    expect(label('mutation Record { recordToolResults(input: []) { snapshots { memId } } }')).toBe('mutation Record');
  });

  it('R-OP-8 an anonymous one by its root fields, never their arguments or literal values', () => {
    expect(label('{ recallMemory(spaceId: "s", query: "secret-text") { recallEventId } me { userId } }')).toBe('query recallMemory,me');
    expect(label('mutation { a: recordToolResults(input: []) { x } b: recordToolResults(input: []) { x } }')).toBe(
      'mutation recordToolResults',
    );
    expect(label('{ ...on Query { me { userId } } }')).toBe('query ...');
  });

  it('R-OP-8 at most five root fields are named, the rest counted', () => {
    expect(label('{ a b c d e f g }')).toBe('query a,b,c,d,e,+2');
  });
});
