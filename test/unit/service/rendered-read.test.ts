/**
 * Which pages go through the page cache and which renderings may be kept: only first pages, only
 * with overrides read, never a chronological page. The cache here is a recording stand-in of its
 * `read` (the real one is tested on Redis in test/integration/cache/grid-cache.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { GridCache, RenderedPage } from '../../../src/cache/grid-cache.js';
import type { GridPage, PageQuery } from '../../../src/service/read/read-page.js';
import {
  createRenderedRead,
  etagOf,
  type ReachStore,
} from '../../../src/service/read/rendered-read.js';

const page = (over: Partial<GridPage> = {}): GridPage => ({
  items: [],
  entries: [],
  nextCursor: null,
  version: 7n,
  generation: 1n,
  postCount: 3n,
  gridChanged: false,
  chronological: false,
  ...over,
});

function setup(read: GridPage, held?: RenderedPage, overridesOn = true) {
  const kept: RenderedPage[] = [];
  let tierReads = 0;
  let pageReads = 0;
  const pages: Pick<GridCache, 'read'> = {
    read: async (_p, _l, _min, fill) => {
      tierReads++;
      if (held) return { ...held, served: 'cache' };
      const got = await fill();
      if (got.keep) kept.push(got.page);
      return { ...got.page, served: 'fill' };
    },
  };
  const flags = { held: () => overridesOn, isEnabled: async () => overridesOn };
  const rendered = createRenderedRead(async () => (pageReads++, read), pages, flags);
  return {
    rendered,
    kept,
    counts: () => ({ tierReads, pageReads }),
  };
}

const q: PageQuery = { profileId: 42n, limit: 24 };
const render = (p: GridPage) => JSON.stringify({ v: String(p.version) });

describe('rendered reads', () => {
  it('serves a held rendering without reading or rendering a page', async () => {
    const held = { generation: 1n, version: 9n, body: '{"v":"9"}', etag: etagOf('{"v":"9"}') };
    const t = setup(page(), held);
    expect(await t.rendered.read(q, render)).toEqual({ ...held, served: 'cache' });
    expect(t.counts()).toEqual({ tierReads: 1, pageReads: 0 });
  });

  it('keeps a first page read on a miss, with the ETag of its body', async () => {
    const t = setup(page());
    const out = await t.rendered.read(q, render);
    expect(out.body).toBe('{"v":"7"}');
    expect(out.etag).toBe(etagOf('{"v":"7"}'));
    expect(t.kept).toEqual([{ generation: 1n, version: 7n, body: out.body, etag: out.etag }]);
  });

  it('keeps nothing read chronologically or past the first page', async () => {
    const chrono = setup(page({ chronological: true }), undefined, false);
    await chrono.rendered.read(q, render);
    expect(chrono.kept).toEqual([]);
    expect(chrono.counts().tierReads).toBe(0); // kill switch: the tiers are not even read
    const later = setup(page());
    await later.rendered.read({ ...q, cursor: 'c' }, render);
    expect(later.kept).toEqual([]);
    expect(later.counts()).toEqual({ tierReads: 0, pageReads: 1 });
  });

  it('reaches the store (the request deadline) only on a miss or past the first page', async () => {
    const held = { generation: 1n, version: 9n, body: '{"v":"9"}', etag: etagOf('{"v":"9"}') };
    let reached = 0;
    const reach: ReachStore = (work) => (reached++, work(undefined));
    await setup(page(), held).rendered.read(q, render, reach);
    expect(reached).toBe(0);
    await setup(page()).rendered.read(q, render, reach);
    expect(reached).toBe(1);
    await setup(page(), held).rendered.read({ ...q, cursor: 'c' }, render, reach);
    expect(reached).toBe(2);
  });

  it('ETags differ whenever bodies differ', () => {
    expect(etagOf('{"a":1}')).not.toBe(etagOf('{"a":2}'));
    expect(etagOf('x')).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
  });
});
