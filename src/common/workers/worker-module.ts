import { extname, join } from 'node:path';

/**
 * Piscina's `filename` and `workerData` for the worker module `name` (without extension) in
 * `directory`, the directory of the caller's own module: the compiled `.js` in a build; under jest
 * or swc-node, where the caller is TypeScript, the `.ts` through a CommonJS entry that registers
 * the same compiler in the thread.
 */
export function workerModule(directory: string, callerFile: string, name: string): { filename: string; workerData?: unknown } {
  if (extname(callerFile) !== '.ts') return { filename: join(directory, `${name}.js`) };
  return { filename: join(__dirname, 'typescript-worker.cjs'), workerData: { typescriptModule: join(directory, `${name}.ts`) } };
}
