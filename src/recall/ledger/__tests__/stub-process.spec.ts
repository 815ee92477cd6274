import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { renderStub } from '../stub';
import type { ToolResultHandle } from '../tool-result-handle';

const ledgerDir = resolve(__dirname, '..');
const projectRoot = resolve(ledgerDir, '../../..');

/**
 * Runs in a fresh node process: compiles the ledger sources with swc into a temp dir, loads the
 * stub module from there and prints the stubs of the handles given as JSON.
 */
const childScript = `
const fs = require('node:fs');
const path = require('node:path');
const swc = require('@swc/core');
const [sourceDir, outDir, handlesJson] = process.argv.slice(1);
for (const file of fs.readdirSync(sourceDir)) {
  if (!file.endsWith('.ts')) continue;
  const { code } = swc.transformFileSync(path.join(sourceDir, file), {
    swcrc: false,
    module: { type: 'commonjs' },
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
  });
  fs.writeFileSync(path.join(outDir, file.replace(/\\.ts$/, '.js')), code);
}
const { renderStub } = require(path.join(outDir, 'stub.js'));
process.stdout.write(JSON.stringify(JSON.parse(handlesJson).map(renderStub)));
`;

const handles: ToolResultHandle[] = [
  {
    memId: 'mem_7QK2M9X4TZ8B3NWA',
    toolName: 'search_products',
    toolCallId: 'toolu_01HqX8v2Lm4Tn7Rb9Kc3Pw5Zs1',
    sizeChars: 363155,
    summaryOneliner: '320 items, newest 2025-05-26',
    schemaHint: '{query, marketplace, items: [{product_id, title, brand, …}×320], total}',
    headPreview: '{"query":"mechanical keyboard","marketplace":"US","items":[{"product_id":"B0Z0T2PUCW",…',
  },
  {
    memId: 'mem_ABCDEFGHIJKLMNOP',
    toolName: 'lookup_rows',
    toolCallId: 'call_1',
    sizeChars: 2048,
    summaryOneliner: '3 rows, newest 2025-05-26',
    schemaHint: '{rows: [{id, name}×3]}',
    headPreview: null,
  },
  {
    memId: 'mem_'.padEnd(300, 'Z'),
    toolName: 'tool\nwith\tbreaks '.repeat(20),
    toolCallId: '\u{1F600}'.repeat(200),
    sizeChars: -1,
    summaryOneliner: 'ꙮ'.repeat(900),
    schemaHint: '{'.repeat(400),
    headPreview: '\u{10FFFF}'.repeat(300),
  },
];

describe('renderStub across processes', () => {
  let outDir: string;

  beforeAll(() => {
    outDir = mkdtempSync(join(tmpdir(), 'recall-ledger-stub-'));
  });

  afterAll(() => {
    rmSync(outDir, { recursive: true, force: true });
  });

  it('R-LG-1 renders byte-identical stubs in a separate node process', () => {
    const output = execFileSync(process.execPath, ['-e', childScript, ledgerDir, outDir, JSON.stringify(handles)], {
      cwd: projectRoot,
      // The compiled files live outside the project, so their imports resolve through NODE_PATH.
      env: { ...process.env, NODE_PATH: join(projectRoot, 'node_modules') },
      encoding: 'utf8',
    });
    const stubs = JSON.parse(output) as string[];
    expect(stubs).toHaveLength(handles.length);
    stubs.forEach((stub, index) => expect(Buffer.from(stub)).toEqual(Buffer.from(renderStub(handles[index]))));
  });
});
