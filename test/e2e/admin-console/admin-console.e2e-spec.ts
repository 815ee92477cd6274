import { rmSync } from 'node:fs';
import request from 'supertest';
import { ADMIN_CONSOLE_CSP } from '../../../src/serve-admin-console';
import { buildAdminConsole } from './support/admin-console';
import { createTestApp, type TestApp } from '../../support/test-app';

const CONTENT_TYPES: Record<string, RegExp> = { js: /javascript/, css: /^text\/css/, svg: /^image\/svg\+xml/ };

// Issue 23: the admin console (R-FB-8, R-FB-9 read through it) is static files the service serves
// under a strict CSP, with long-cached hashed scripts. The browser walk is browser.e2e-spec.ts.
describe('admin console files at /admin (R-FB-8)', () => {
  let consoleDir: string;
  let t: TestApp;

  beforeAll(async () => {
    consoleDir = buildAdminConsole();
    t = await createTestApp({ ADMIN_CONSOLE_DIR: consoleDir });
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    rmSync(consoleDir, { recursive: true, force: true });
  });

  const server = () => t.app.getHttpServer();

  it('R-FB-8 /admin/ is the page, revalidated on every load, with a CSP that forbids inline script and other origins', async () => {
    const res = await request(server()).get('/admin/').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toBe(ADMIN_CONSOLE_CSP);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-cache');
    // Every script is an external file: the CSP would block an inline one.
    const scripts = [...res.text.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toMatch(/\bsrc="\/admin\/assets\/[\w-]+-[\w-]{8,}\.js"/);
    expect(res.text).not.toMatch(/<style\b|\sstyle="/);
  });

  it('R-FB-8 the scripts and styles have content-hashed names and are cached for a year', async () => {
    const page = await request(server()).get('/admin/').expect(200);
    const assets = [...page.text.matchAll(/(?:src|href)="(\/admin\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets.some((a) => a.endsWith('.js'))).toBe(true);
    expect(assets.some((a) => a.endsWith('.css'))).toBe(true);
    for (const asset of assets) {
      const res = await request(server()).get(asset).expect(200);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['content-security-policy']).toBe(ADMIN_CONSOLE_CSP);
      expect(res.headers['content-type']).toMatch(CONTENT_TYPES[asset.split('.').pop()!]);
    }
  });

  it('R-FB-8 R-OP-4 /admin redirects to /admin/, and a missing file is a JSON 404 in the house shape, never an HTML page', async () => {
    const redirect = await request(server()).get('/admin').expect(301);
    expect(redirect.headers.location).toBe('/admin/');
    const missing = await request(server()).get('/admin/assets/nothing-here.js').expect(404);
    expect(missing.headers['content-type']).toMatch(/application\/json/);
    expect(missing.body.errors[0].message).toContain('/admin/assets/nothing-here.js');
    expect(missing.body.errors[0].extensions).toEqual({ code: 'NOT_FOUND' });
  });

  it('R-FB-8 ADMIN_CONSOLE_ENABLED=false serves no console; the API stays', async () => {
    const off = await createTestApp({ ADMIN_CONSOLE_DIR: consoleDir, ADMIN_CONSOLE_ENABLED: 'false' });
    try {
      const res = await request(off.app.getHttpServer()).get('/admin/').expect(404);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body.errors[0].message).toContain('ADMIN_CONSOLE_ENABLED=false');
      expect(res.body.errors[0].extensions).toEqual({ code: 'NOT_FOUND' });
      expect(res.headers['content-security-policy']).toBeUndefined();
      await request(off.app.getHttpServer()).get('/health').expect(200);
    } finally {
      await off.close();
    }
  });

  it('R-FB-8 before `npm run build` the console answers 503 in JSON saying how to build it', async () => {
    const unbuilt = await createTestApp({ ADMIN_CONSOLE_DIR: `${consoleDir}-absent` });
    try {
      const res = await request(unbuilt.app.getHttpServer()).get('/admin/').expect(503);
      expect(res.body.errors[0].message).toContain('npm run build');
      expect(res.body.errors[0].extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR' });
      // The answer names no file path (the folder is the operator's ADMIN_CONSOLE_DIR).
      expect(res.text).not.toContain(`${consoleDir}-absent`);
    } finally {
      await unbuilt.close();
    }
  });
});
