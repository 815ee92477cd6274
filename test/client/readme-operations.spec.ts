import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { Kind, parse, type DocumentNode, type OperationDefinitionNode } from 'graphql';

const ROOT = join(__dirname, '../..');
const OPERATIONS_DIR = join(ROOT, 'clients/typescript/operations');

/** An operation as this test compares them: its type and the root fields it selects. */
interface RootSelection {
  kind: string;
  fields: string[];
}

function rootSelections(document: DocumentNode): RootSelection[] {
  return document.definitions
    .filter((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION)
    .map((operation) => ({
      kind: operation.operation,
      fields: operation.selectionSet.selections.flatMap((selection) => (selection.kind === Kind.FIELD ? [selection.name.value] : [])),
    }));
}

/** README.md and every page of docs/: the files whose examples this test reads. */
function documentationFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => join(ROOT, 'docs', name));
  return [join(ROOT, 'README.md'), ...docs];
}

/** Each `"query": "…"` JSON string of a documentation file's examples, unescaped, with its line. */
function exampleQueries(path: string): { line: number; query: string }[] {
  const text = readFileSync(path, 'utf8');
  return [...text.matchAll(/"query"\s*:\s*("(?:[^"\\\n]|\\.)*")/g)].map((match) => ({
    line: text.slice(0, match.index).split('\n').length,
    query: JSON.parse(match[1]) as string,
  }));
}

function operationFiles(dir = OPERATIONS_DIR): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return operationFiles(path);
    return entry.name.endsWith('.graphql') ? [path] : [];
  });
}

describe('typed client: operation documents (issue 23)', () => {
  const documents = operationFiles().map((path) => ({ path, document: parse(readFileSync(path, 'utf8')) }));

  it('every operation the README and docs/ show has a typed document selecting the same root fields', () => {
    const files = documentationFiles();
    const typed = documents.flatMap(({ document }) => rootSelections(document));
    let total = 0;
    const missing = files.flatMap((path) => {
      const examples = exampleQueries(path);
      // Every `"query"` key of the file is read here: an example written another way would escape the check.
      expect({ file: relative(ROOT, path), examples: examples.length }).toEqual({
        file: relative(ROOT, path),
        examples: readFileSync(path, 'utf8').split('"query"').length - 1,
      });
      total += examples.length;
      return examples.flatMap(({ line, query }) => {
        const where = `${relative(ROOT, path)}:${line}`;
        let document: DocumentNode;
        try {
          document = parse(query);
        } catch (error) {
          return [`${where}: does not parse: ${(error as Error).message}`];
        }
        return rootSelections(document)
          .filter(
            (wanted) => !typed.some((have) => have.kind === wanted.kind && wanted.fields.every((field) => have.fields.includes(field))),
          )
          .map((wanted) => `${where}: ${wanted.kind} { ${wanted.fields.join(' ')} }`);
      });
    });
    expect(files.length).toBeGreaterThan(1);
    expect(total).toBeGreaterThan(0);
    expect({ withoutTypedDocument: missing }).toEqual({ withoutTypedDocument: [] });
  });

  it('each operation file holds one named operation, named after the file (create-space.graphql: CreateSpace)', () => {
    const misnamed = documents.flatMap(({ path, document }) => {
      const names = document.definitions.map((definition) =>
        definition.kind === Kind.OPERATION_DEFINITION ? definition.name?.value : definition.kind,
      );
      const expected = basename(path, '.graphql').replace(/(^|-)([a-z])/g, (_, _dash: string, letter: string) => letter.toUpperCase());
      return names.length === 1 && names[0] === expected
        ? []
        : [`${relative(ROOT, path)}: ${JSON.stringify(names)}, expected ["${expected}"]`];
    });
    expect(documents.length).toBeGreaterThan(0);
    expect({ misnamed }).toEqual({ misnamed: [] });
  });
});
