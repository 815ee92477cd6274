// CI gate: fails when clients/typescript/src/generated/ is not what `npm run codegen` writes from
// schema.gql and clients/typescript/operations/. Generates in memory, formats as the codegen hook
// does (prettier), and compares with the files on disk: the working tree is left as it is.
const { existsSync, readdirSync, readFileSync } = require('node:fs');
const { join, relative, resolve } = require('node:path');
require('@swc-node/register');
const { generate } = require('@graphql-codegen/cli');
const prettier = require('prettier');
const config = require('../clients/typescript/codegen.ts').default;

const root = resolve(__dirname, '..');
const generatedDir = join(root, 'clients/typescript/src/generated');

async function main() {
  process.chdir(root);
  const outputs = await generate({ ...config, silent: true }, false);
  const expected = new Map();
  for (const { filename, content } of outputs) {
    const path = resolve(root, filename);
    expected.set(path, await prettier.format(content, { ...(await prettier.resolveConfig(path)), filepath: path }));
  }

  const onDisk = existsSync(generatedDir) ? readdirSync(generatedDir, { recursive: true }).map((name) => join(generatedDir, name)) : [];
  const problems = [];
  for (const [path, content] of expected) {
    if (!existsSync(path)) problems.push(`missing: ${relative(root, path)}`);
    else if (readFileSync(path, 'utf8') !== content) problems.push(`stale: ${relative(root, path)}`);
  }
  for (const path of onDisk) if (!expected.has(path)) problems.push(`not generated any more: ${relative(root, path)}`);

  if (problems.length > 0) {
    console.error(`The typed client is stale against schema.gql or clients/typescript/operations:\n  ${problems.join('\n  ')}`);
    console.error('run npm run codegen and commit clients/typescript/src/generated/');
    process.exit(1);
  }
  console.log(`clients/typescript/src/generated/ is up to date (${expected.size} files).`);
}

main().catch((error) => {
  console.error(error.message ?? error);
  console.error('codegen failed: make clients/typescript/operations valid against schema.gql, then run npm run codegen');
  process.exit(1);
});
