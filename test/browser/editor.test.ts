/**
 * The web editor in headless Chromium (Debian's package, driven by playwright-core), against the
 * real service on the shared Cassandra and Redis: every check of an edit reads the order back from
 * the server (GET /v1/profiles/:id/grid), not from the page.
 */
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { openEditor, type Editor, type Served } from './harness.js';

const CHROMIUM = '/usr/bin/chromium';
let editor: Editor;
let browser: Browser;

beforeAll(async () => {
  editor = await openEditor();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
});
afterAll(async () => {
  await browser?.close();
  await editor?.close();
});

interface Setup {
  readonly profile: bigint;
  readonly served: Served;
  readonly page: Page;
  /** The grid as first shown: newest first. */
  readonly display: string[];
}

/** A fresh profile with `n` posts, the app serving its development token, the page loaded. */
async function seedPosts(n: number): Promise<{ profile: bigint; display: string[] }> {
  const profile = editor.ids.next();
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await editor.service.createPost(profile, { caption: `post ${i}` });
    ids.push(r.value.postId.toString());
  }
  return { profile, display: ids.reverse() };
}

async function open(n: number, poll = 400): Promise<Setup> {
  const { profile, display } = await seedPosts(n);
  const served = await editor.serve(profile);
  const context = await browser.newContext({ viewport: { width: 960, height: 1100 } });
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error('[page error]', err));
  await page.goto(`${served.base}/?poll=${poll}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
  return { profile, served, page, display };
}

async function close(s: Setup): Promise<void> {
  await s.page.context().close();
  await s.served.close();
}

const serverOrder = async (s: Setup): Promise<string[]> => {
  const r = await s.served.call('GET', `/v1/profiles/${s.profile}/grid?limit=100`, s.profile);
  return (r.json.items as { id: string }[]).map((p) => p.id);
};

const domOrder = (page: Page): Promise<string[]> =>
  page.$$eval('#grid .tile', (els) => els.map((e) => e.getAttribute('data-post-id') ?? ''));

const moved = <T>(xs: readonly T[], from: number, to: number): T[] => {
  const out = xs.slice();
  const [x] = out.splice(from, 1);
  out.splice(to, 0, x!);
  return out;
};

/** expect.poll with room for a busy 2-core machine (its default gives up after 1 s). */
const eventually = <T>(fn: () => T | Promise<T>) =>
  expect.poll(fn, { timeout: 15_000, interval: 100 });

const tile = (page: Page, id: string) => page.locator(`#grid .tile[data-post-id="${id}"]`);

/** A mouse drag from the tile at display index `from` to the slot of index `to`. */
async function dragTo(page: Page, from: number, to: number): Promise<void> {
  const tiles = page.locator('#grid .tile');
  const a = (await tiles.nth(from).boundingBox())!;
  const b = (await tiles.nth(to).boundingBox())!;
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(a.x + a.width / 2 + 12, a.y + a.height / 2 + 12, { steps: 3 });
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 12 });
  await page.mouse.up();
}

describe('web editor (headless Chromium)', () => {
  it('a drag is saved at once as one anchor-based move with its own Idempotency-Key', async () => {
    const s = await open(9);
    try {
      const moves: { key: string | undefined; body: unknown }[] = [];
      s.page.on('request', (r) => {
        if (r.url().endsWith('/v1/me/grid/moves')) {
          moves.push({ key: r.headers()['idempotency-key'], body: r.postDataJSON() });
        }
      });
      expect(await domOrder(s.page)).toEqual(s.display);
      const saved = s.page.waitForResponse((r) => r.url().endsWith('/v1/me/grid/moves'));
      await dragTo(s.page, 7, 1);
      const expected = moved(s.display, 7, 1);
      expect(await domOrder(s.page)).toEqual(expected); // optimistic: before the answer
      expect((await saved).status()).toBe(200);
      await eventually(() => serverOrder(s)).toEqual(expected);
      expect(moves).toEqual([
        {
          key: expect.stringMatching(
            /^"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"$/,
          ),
          body: { post_id: s.display[7], after: s.display[0] },
        },
      ]);
      await expect
        .poll(() => s.page.locator('#version').getAttribute('data-version'))
        .not.toBe(null);
    } finally {
      await close(s);
    }
  });

  it('a touch drag (long press, then move) reorders too', async () => {
    const s = await open(6);
    try {
      const cdp = await s.page.context().newCDPSession(s.page);
      const tiles = s.page.locator('#grid .tile');
      const a = (await tiles.nth(5).boundingBox())!;
      const b = (await tiles.nth(0).boundingBox())!;
      const at = (box: typeof a) => [{ x: box.x + box.width / 2, y: box.y + box.height / 2 }];
      const saved = s.page.waitForResponse((r) => r.url().endsWith('/v1/me/grid/moves'));
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(a) });
      await s.page.waitForSelector('#grid .tile.dragging'); // the long press took
      for (let i = 1; i <= 10; i++) {
        const p = { x: a.x + (b.x - a.x) * (i / 10), y: a.y + (b.y - a.y) * (i / 10) };
        const point = [{ x: p.x + b.width / 2, y: p.y + b.height / 2 }];
        await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: point });
      }
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
      expect((await saved).status()).toBe(200);
      await eventually(() => serverOrder(s)).toEqual(moved(s.display, 5, 0));
    } finally {
      await close(s);
    }
  });

  it('the keyboard moves a tile: Space picks it up, arrows move it, Space drops it', async () => {
    const s = await open(9);
    try {
      await tile(s.page, s.display[5]!).focus();
      await s.page.keyboard.press('Space');
      await s.page.keyboard.press('ArrowUp'); // 5 → 2
      await s.page.keyboard.press('ArrowLeft'); // 2 → 1
      const saved = s.page.waitForResponse((r) => r.url().endsWith('/v1/me/grid/moves'));
      await s.page.keyboard.press('Space');
      expect((await saved).status()).toBe(200);
      const expected = moved(s.display, 5, 1);
      await eventually(() => serverOrder(s)).toEqual(expected);
      expect(await domOrder(s.page)).toEqual(expected);
      // Escape puts a picked-up tile back and saves nothing.
      await tile(s.page, s.display[0]!).focus();
      await s.page.keyboard.press('Enter');
      await s.page.keyboard.press('ArrowDown');
      await s.page.keyboard.press('Escape');
      expect(await domOrder(s.page)).toEqual(expected);
      expect(await serverOrder(s)).toEqual(expected);
    } finally {
      await close(s);
    }
  });

  it('pins (at most 3, first and marked), archives and unarchives; screenshot', async () => {
    const s = await open(12);
    try {
      const d = s.display;
      const pin = async (id: string) => {
        const done = s.page.waitForResponse((r) => r.url().endsWith('/v1/me/grid/pins'));
        await tile(s.page, id).locator('button.pin').click();
        expect((await done).status()).toBe(200);
      };
      await pin(d[4]!);
      await pin(d[9]!);
      const pinnedFirst = [d[4]!, d[9]!, ...d.filter((_, i) => i !== 4 && i !== 9)];
      await eventually(() => serverOrder(s)).toEqual(pinnedFirst);
      await eventually(() => domOrder(s.page)).toEqual(pinnedFirst);
      expect(await s.page.$$eval('#grid .tile.pinned', (e) => e.length)).toBe(2);
      expect(await tile(s.page, d[4]!).locator('.pin-badge').isVisible()).toBe(true);

      await pin(d[0]!);
      let pinsSent = 0;
      s.page.on('request', (r) => r.url().endsWith('/v1/me/grid/pins') && pinsSent++);
      await tile(s.page, d[1]!).locator('button.pin').click(); // a fourth
      await eventually(() => s.page.locator('#error').textContent()).toContain('At most 3');
      expect(pinsSent).toBe(0);

      const archived = s.page.waitForResponse((r) => r.url().endsWith('/archive'));
      await tile(s.page, d[6]!).locator('button.archive').click();
      expect((await archived).status()).toBe(200);
      await eventually(async () => (await serverOrder(s)).includes(d[6]!)).toBe(false);
      await eventually(async () => (await domOrder(s.page)).includes(d[6]!)).toBe(false);
      expect(await serverOrder(s)).toEqual(await domOrder(s.page));

      mkdirSync('reports', { recursive: true });
      await s.page.mouse.move(0, 0);
      await s.page.screenshot({ path: 'reports/editor.png', fullPage: true });

      await s.page.click('#show-archive');
      const back = s.page.waitForResponse((r) => r.url().endsWith('/unarchive'));
      await s.page.locator(`#archive-list li[data-post-id="${d[6]}"] button`).click();
      expect((await back).status()).toBe(200);
      await eventually(async () => (await serverOrder(s)).includes(d[6]!)).toBe(true);
      await eventually(() => domOrder(s.page)).toEqual(await serverOrder(s));
    } finally {
      await close(s);
    }
  });

  it('undo puts the last move back; reset returns to chronological order', async () => {
    const s = await open(6);
    try {
      const moveSaved = () => s.page.waitForResponse((r) => r.url().endsWith('/v1/me/grid/moves'));
      let saved = moveSaved();
      await dragTo(s.page, 4, 1);
      expect((await saved).status()).toBe(200);
      await eventually(() => serverOrder(s)).toEqual(moved(s.display, 4, 1));
      const undone = s.page.waitForResponse((r) => r.url().endsWith('/undo'));
      await s.page.click('#undo');
      expect((await undone).status()).toBe(200);
      await eventually(() => serverOrder(s)).toEqual(s.display);
      await eventually(() => domOrder(s.page)).toEqual(s.display);

      saved = moveSaved();
      await dragTo(s.page, 5, 0);
      expect((await saved).status()).toBe(200);
      await s.page.click('#reset');
      await s.page.locator('#ask button[data-answer="yes"]').click();
      await eventually(() => serverOrder(s)).toEqual(s.display);
      await eventually(() => domOrder(s.page)).toEqual(s.display);
    } finally {
      await close(s);
    }
  });

  it('notices a move made on another device and reloads', async () => {
    const s = await open(9);
    try {
      const r = await s.served.call('POST', '/v1/me/grid/moves', s.profile, {
        post_id: s.display[8],
        after: null,
      });
      expect(r.status).toBe(200);
      const expected = moved(s.display, 8, 0);
      await eventually(() => domOrder(s.page)).toEqual(expected);
      expect(await s.page.locator('#changed').textContent()).toContain('another device');
      expect(await s.page.locator('#version').getAttribute('data-version')).toBe(
        r.json.grid_version,
      );
    } finally {
      await close(s);
    }
  });

  it('a drag whose anchor another device archived snaps back, says why and reloads', async () => {
    const s = await open(9, 3_600_000); // no polling: the page cannot know before it tries
    try {
      const d = s.display;
      expect((await s.served.call('POST', `/v1/me/posts/${d[1]}/archive`, s.profile)).status).toBe(
        200,
      );
      const refused = s.page.waitForResponse((r) => r.url().endsWith('/v1/me/grid/moves'));
      await dragTo(s.page, 5, 2); // lands right after d[1]
      expect((await refused).status()).toBe(409);
      await expect
        .poll(() => s.page.locator('#error').textContent())
        .toContain('no longer on the grid');
      const server = d.filter((_, i) => i !== 1); // the move was not applied
      expect(await serverOrder(s)).toEqual(server);
      await eventually(() => domOrder(s.page)).toEqual(server);
    } finally {
      await close(s);
    }
  });

  it('edit, then Done: one batch with If-Match; on 412 it replays, asking only about the vanished anchor', async () => {
    const s = await open(9);
    try {
      const d = s.display;
      const seen: string[] = [];
      s.page.on('request', (r) => {
        const path = new URL(r.url()).pathname;
        if (r.method() !== 'GET')
          seen.push(`${r.method()} ${path} ${r.headers()['if-match'] ?? ''}`);
      });
      const patches: number[] = [];
      s.page.on('response', (r) => r.request().method() === 'PATCH' && patches.push(r.status()));
      await s.page.click('#edit');
      await s.page.waitForSelector('#done:not([hidden])');
      await dragTo(s.page, 6, 1); // d6 after d0
      await dragTo(s.page, 8, 4); // d8 after d2
      expect(await domOrder(s.page)).toEqual([
        d[0],
        d[6],
        d[1],
        d[2],
        d[8],
        d[3],
        d[4],
        d[5],
        d[7],
      ]);
      expect(seen).toEqual([]); // nothing is saved while editing
      // Another device archives d0, the anchor of the first move: the ETag is now stale.
      expect((await s.served.call('POST', `/v1/me/posts/${d[0]}/archive`, s.profile)).status).toBe(
        200,
      );
      await eventually(() => s.page.locator('#changed').isVisible()).toBe(true);

      await s.page.click('#done');
      const ask = s.page.locator('#ask');
      await ask.waitFor({ state: 'visible' });
      expect(await ask.locator('p').textContent()).toContain('"post 2" was to go after "post 8"'); // d6 after d0;
      await ask.locator('button[data-answer="top"]').click();
      const expected = [d[6], d[1], d[2], d[8], d[3], d[4], d[5], d[7]];
      await eventually(() => serverOrder(s)).toEqual(expected);
      await eventually(() => domOrder(s.page)).toEqual(expected);
      expect(patches).toEqual([412, 200]);
      const [first, second] = seen.filter((x) => x.startsWith('PATCH'));
      expect(first).toMatch(/^PATCH \/v1\/me\/grid\/order "\d+\.\d+"$/);
      expect(second).not.toBe(first); // the replay went with the new ETag
      expect(seen.filter((x) => x.includes('/moves'))).toEqual([]);
      expect(await s.page.locator('#status').textContent()).toContain('after replaying');
    } finally {
      await close(s);
    }
  });

  it('in development the editor signs in by itself on the profile the server names', async () => {
    const s = await open(3);
    try {
      expect(await s.page.locator('#who').textContent()).toBe(`profile ${s.profile}`);
      expect(await domOrder(s.page)).toEqual(s.display);
    } finally {
      await close(s);
    }
  });

  it('without the development sign-in (a configured secret) the user pastes a token', async () => {
    const { profile, display } = await seedPosts(3);
    const served = await editor.serve(); // no POST /dev/token
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(served.base + '/');
      const form = page.locator('#signin');
      await form.waitFor({ state: 'visible' });
      await form.locator('textarea').fill('not a token');
      await form.locator('button').click();
      expect(await form.locator('.signin-note').textContent()).toContain('not a current');
      await form.locator('textarea').fill(await editor.token(profile));
      await form.locator('button').click();
      await page.waitForSelector('body[data-ready="true"]');
      expect(await domOrder(page)).toEqual(display);
      expect(await form.isHidden()).toBe(true);
    } finally {
      await context.close();
      await served.close();
    }
  });
});
