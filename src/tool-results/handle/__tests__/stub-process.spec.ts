import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { renderStub } from '../stub';
import type { StubSource } from '../tool-result-handle';

const ledgerDir = resolve(__dirname, '..');
const projectRoot = resolve(ledgerDir, '../../..');

/**
 * Runs in a fresh node process: loads the stub module from source through swc-node and prints the
 * stubs of the handles given as JSON.
 */
const childScript = `
require('@swc-node/register');
const path = require('node:path');
const [sourceDir, handlesJson] = process.argv.slice(1);
const { renderStub } = require(path.join(sourceDir, 'stub.ts'));
process.stdout.write(JSON.stringify(JSON.parse(handlesJson).map((handle) => renderStub(handle))));
`;

const handles: StubSource[] = [
  {
    memId: 'mem_7QK2M9X4TZ8B3NWA',
    toolName: 'search_products',
    toolCallId: 'toolu_01HqX8v2Lm4Tn7Rb9Kc3Pw5Zs1',
    sizeChars: 363155,
    sizeTokens: 131702,
    summaryOneliner: '320 items, newest 2025-05-26',
    schemaHint: '{query, marketplace, items: [{product_id, title, brand, …}×320], total}',
    headPreview: '{"query":"mechanical keyboard","marketplace":"US","items":[{"product_id":"B0Z0T2PUCW",…',
  },
  {
    memId: 'mem_ABCDEFGHIJKLMNOP',
    toolName: 'lookup_rows',
    toolCallId: 'call_1',
    sizeChars: 2048,
    sizeTokens: 600,
    summaryOneliner: '3 rows, newest 2025-05-26',
    schemaHint: '{rows: [{id, name}×3]}',
    headPreview: null,
  },
  {
    memId: 'mem_'.padEnd(300, 'Z'),
    toolName: 'tool\nwith\tbreaks '.repeat(20),
    toolCallId: '\u{1F600}'.repeat(200),
    sizeChars: -1,
    sizeTokens: 9000,
    summaryOneliner: 'ꙮ'.repeat(900),
    schemaHint: '{'.repeat(400),
    headPreview: '\u{10FFFF}'.repeat(300),
  },
];

describe('renderStub across processes', () => {
  it('R-LG-1 renders byte-identical stubs in a separate node process', () => {
    const output = execFileSync(process.execPath, ['-e', childScript, ledgerDir, JSON.stringify(handles)], {
      cwd: projectRoot,
      encoding: 'utf8',
    });
    const stubs = JSON.parse(output) as string[];
    expect(stubs).toHaveLength(handles.length);
    stubs.forEach((stub, index) => expect(Buffer.from(stub)).toEqual(Buffer.from(renderStub(handles[index]))));
  });
});
