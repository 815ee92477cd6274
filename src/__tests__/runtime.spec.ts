import { readFileSync } from 'node:fs';
import { join } from 'node:path';

describe('Runtime', () => {
  it('R-OP-1 runs on the Node.js major that package.json engines names (24 LTS, from the pinned node devDependency)', () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      engines: { node: string };
      devDependencies: Record<string, string>;
    };
    const enginesMajor = /^\^(\d+)\./.exec(manifest.engines.node)?.[1];
    expect(enginesMajor).toBe('24');
    expect(manifest.devDependencies.node.split('.')[0]).toBe(enginesMajor);
    expect(process.versions.node.split('.')[0]).toBe(enginesMajor);
  });
});
