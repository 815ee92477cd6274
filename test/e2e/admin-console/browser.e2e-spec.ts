import { mkdirSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { ARTIFACTS_DIR, buildAdminConsole, CHROMIUM_ARGS, chromiumPath } from './support/admin-console';
import { createFeedbackApp, fine, newTeam, submitOk, type Team } from '../../support/feedback-fixtures';
import { toolResult } from '../../support/fixtures';
import { record, recallOk, uniqueWord } from '../../support/recall-events-fixtures';
import type { TestApp } from '../../support/test-app';

// Issue 23: the admin console walked in a real Chromium (Debian's), against the whole service on a
// real database. Without Chromium the file is skipped and says so, unless REQUIRE_CHROMIUM=1 (CI)
// makes a missing browser a failure.
const browserPath = chromiumPath();
if (browserPath === null && process.env.REQUIRE_CHROMIUM === '1') {
  throw new Error('REQUIRE_CHROMIUM=1 but there is no Chromium at /usr/bin/chromium (apt-get install chromium, or set CHROMIUM_PATH).');
}
if (browserPath === null) {
  console.warn('admin console browser tests skipped: no Chromium at /usr/bin/chromium (apt-get install chromium, or set CHROMIUM_PATH)');
}
const describeInBrowser = browserPath === null ? describe.skip : describe;

/** What the pixel check uses of a canvas (the test's own TypeScript has no DOM types). */
interface CanvasLike {
  width: number;
  height: number;
  getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
}

const LOW_COMMENT = 'The order list it recalled was last week’s; today’s orders were missing.';

describeInBrowser('admin console in Chromium (R-FB-8, R-FB-9)', () => {
  let consoleDir: string;
  let t: TestApp;
  let team: Team;
  let base: string;
  let browser: Browser;
  /** Script errors and refused loads (a CSP refusal is one) of the current test's pages. */
  const problems: string[] = [];
  beforeEach(() => {
    problems.length = 0;
  });

  beforeAll(async () => {
    consoleDir = buildAdminConsole();
    t = await createFeedbackApp({ ADMIN_CONSOLE_DIR: consoleDir });
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    team = await newTeam(t);
    await seedFeedback(t, team);
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    browser = await chromium.launch({ executablePath: browserPath!, args: CHROMIUM_ARGS });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    rmSync(consoleDir, { recursive: true, force: true });
  });

  /** A fresh page that records every script error and CSP refusal, so a test can assert there were none. */
  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    return page;
  }

  async function signIn(page: Page, token: string): Promise<void> {
    await page.goto(`${base}/admin/`);
    await page.fill('#token', token);
    await page.click('button[type=submit]');
  }

  /** The whole page, or the top `height` pixels (docs/admin-console.md's picture, kept small). */
  const shot = (page: Page, name: string, height?: number) =>
    page.screenshot({
      path: join(ARTIFACTS_DIR, `admin-console-${name}.png`),
      ...(height === undefined ? { fullPage: true } : { clip: { x: 0, y: 0, width: 1200, height } }),
    });

  it('R-FB-8 an admin signs in, filters by LOW quality, opens the event and sees its refs with stubs and its comment; R-FB-9 the plot renders', async () => {
    const page = await newPage();
    await signIn(page, team.admin.token);
    await page.getByRole('heading', { name: 'Feedback events' }).waitFor();
    // The token stays in the page's memory: nothing in storage, no cookie.
    expect(await page.evaluate('[localStorage.length, sessionStorage.length, document.cookie]')).toEqual([0, 0, '']);
    expect(await page.context().cookies()).toEqual([]);
    await page.locator('.count', { hasText: '6 events' }).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(6);
    await shot(page, 'feedback-all', 570);

    await page.selectOption('select[name=quality]', 'LOW');
    await page.locator('.count', { hasText: '1 event' }).waitFor();
    expect(page.url()).toContain('quality=LOW');
    const rows = page.locator('tbody tr');
    expect(await rows.count()).toBe(1);
    await expect(rows.first().locator('.mark').first().textContent()).resolves.toBe('LOW');
    await expect(rows.first().locator('.comment').textContent()).resolves.toBe(LOW_COMMENT);
    await shot(page, 'feedback');

    await rows.first().locator('a').click();
    await page.getByRole('heading', { name: /^Feedback fb_/ }).waitFor();
    await expect(page.locator('.comment-text').textContent()).resolves.toBe(LOW_COMMENT);
    const refs = page.locator('.refs li');
    expect(await refs.count()).toBe(2);
    expect(await refs.evaluateAll((items) => items.map((li) => li.getAttribute('data-rank')))).toEqual(['1', '2']);
    await expect(refs.first().locator('pre.stub').textContent()).resolves.toContain('[recall-ledger tool_memory');
    await expect(page.locator('.facts').first().textContent()).resolves.toContain('search_orders');
    await shot(page, 'feedback-event');

    await page.getByRole('link', { name: 'Trends' }).click();
    await page.getByRole('heading', { name: 'Feedback per day (UTC)' }).waitFor();
    await page.locator('.plot canvas').waitFor();
    expect(await page.locator('table.trend tbody tr').count()).toBe(30);
    // The series were drawn: the plot's canvas holds pixels of the used-rate line's blue.
    const bluePixels = await page.locator('.plot canvas').evaluate((canvas: CanvasLike) => {
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      let count = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i] < 80 && data[i + 2] > 200 && data[i + 3] > 0) count += 1;
      return count;
    });
    expect(bluePixels).toBeGreaterThan(20);
    await shot(page, 'trends');

    await page.getByRole('link', { name: 'Spaces' }).click();
    await page.getByRole('heading', { name: 'Spaces' }).waitFor();
    await expect(page.locator('table.spaces tbody tr').first().textContent()).resolves.toContain('ACTIVE');
    await shot(page, 'spaces');

    expect(problems).toEqual([]);
  }, 120_000);

  it('R-FB-8 the list pages on: the next 50 events load when its end scrolls into view, each once', async () => {
    const other = await newTeam(t);
    const recall = await recallOk(t, other.member, { s: other.member.spaceId, q: 'anything' });
    const items = Array.from({ length: 55 }, () => fine(recall.recallEventId, { quality: 'MEDIUM' }));
    await submitOk(t, other.member, items.slice(0, 50));
    await submitOk(t, other.member, items.slice(50));

    const page = await newPage();
    await signIn(page, other.admin.token);
    await page.locator('.count', { hasText: '55 events' }).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(50);
    await page.locator('.sentinel').scrollIntoViewIfNeeded();
    await page.locator('tbody tr').nth(54).waitFor();
    const ids = await page.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-event-id')));
    expect(new Set(ids).size).toBe(55);
    expect(await page.locator('.sentinel button').count()).toBe(0);
    expect(problems).toEqual([]);
  }, 60_000);

  it('R-FB-8 a token without the admin scope gets a clear refusal and no page', async () => {
    const page = await newPage();
    await signIn(page, team.member.token);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    await expect(alert.textContent()).resolves.toMatch(/not admin.*sign in with a token that has the admin scope/);
    expect(await page.getByRole('heading', { name: 'Feedback events' }).count()).toBe(0);
    await shot(page, 'refused');
    expect(problems).toEqual([]);
  }, 60_000);
});

/**
 * Six recalls of the member's snapshots, each judged once: one LOW with a comment (the one the
 * walk opens), the rest MEDIUM or HIGH, spread over the last days so the plot has a line.
 */
async function seedFeedback(t: TestApp, team: Team): Promise<void> {
  const word = uniqueWord('order');
  const conversationId = crypto.randomUUID();
  await record(t, team.member, [
    toolResult(team.member.spaceId, conversationId, { toolName: 'search_orders', toolOutput: { orders: [{ id: 1, note: word }] } }),
    toolResult(team.member.spaceId, conversationId, { toolName: 'search_orders', toolOutput: { orders: [{ id: 2, note: word }] } }),
  ]);
  const judged: string[] = [];
  for (let day = 0; day < 6; day += 1) {
    const recall = await recallOk(t, team.member, { s: team.member.spaceId, q: word, c: conversationId });
    const item =
      day === 0
        ? fine(recall.recallEventId, {
            quality: 'LOW',
            used: false,
            answerSupported: false,
            missingContext: true,
            feedbackComment: LOW_COMMENT,
          })
        : fine(recall.recallEventId, { quality: day % 2 === 0 ? 'HIGH' : 'MEDIUM', used: day !== 3 });
    judged.push(...(await submitOk(t, team.member, [item])).feedbackEventIds);
  }
  // Event i was given i days ago (at UTC noon, away from any bucket edge); the LOW one stays today.
  for (const [i, id] of judged.entries()) {
    if (i === 0) continue;
    await t.sql.query(
      `update feedback_events set created_at = (date_trunc('day', now() at time zone 'UTC') at time zone 'UTC') - make_interval(days => $1) + interval '12 hours' where id = $2`,
      [i, id],
    );
  }
}
