import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * The admin console, built into dist/admin-console at `npm run build` and served by the service
 * at /admin. Every script and stylesheet gets a content-hashed name (long-cached); index.html
 * loads them as external files only, so the page runs under a CSP without 'unsafe-inline'.
 */
export default defineConfig({
  root: here,
  base: '/admin/',
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/admin-console', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    // Inlined assets would be data: URLs; keep every asset a hashed file the CSP allows.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
});
