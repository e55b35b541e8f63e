/**
 * Which first pages go through the rendered-page tiers and which renderings are kept: only
 * first pages, only with overrides read, only renderings of a page whose entries came from the
 * cache entry of exactly its state. The tiers here are a recording stand-in of the interface
 * (the real ones are tested on Redis in test/integration/cache/rendered-pages.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { RenderedPage, RenderedPages } from '../../../src/cache/rendered-pages.js';
import type { GridPage, PageQuery } from '../../../src/service/read/read-page.js';
import { createRenderedRead, etagOf } from '../../../src/service/read/rendered-read.js';

const page = (over: Partial<GridPage> = {}): GridPage => ({
  items: [],
  entries: [],
  nextCursor: null,
  version: 7n,
  generation: 1n,
  postCount: 3n,
  gridChanged: false,
  chronological: false,
  fromStateCache: true,
  ...over,
});

function setup(read: GridPage, held?: RenderedPage, overridesOn = true) {
  const kept: RenderedPage[] = [];
  let tierReads = 0;
  let pageReads = 0;
  const pages: RenderedPages = {
    stats: { redisHits: 0, misses: 0 },
    read: async () => (tierReads++, held),
    remember: (_p, _l, r) => void kept.push(r),
  };
  const flags = { isEnabled: async () => overridesOn };
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
    expect(await t.rendered.read(q, render)).toBe(held);
    expect(t.counts()).toEqual({ tierReads: 1, pageReads: 0 });
  });

  it('keeps a first page read from its state cache, with the ETag of its body', async () => {
    const t = setup(page());
    const out = await t.rendered.read(q, render);
    expect(out.body).toBe('{"v":"7"}');
    expect(out.etag).toBe(etagOf('{"v":"7"}'));
    expect(t.kept).toEqual([out]);
  });

  it('keeps nothing read around the state cache, chronologically, or past the first page', async () => {
    const unstable = setup(page({ fromStateCache: false }));
    await unstable.rendered.read(q, render);
    expect(unstable.kept).toEqual([]);
    const chrono = setup(page({ chronological: true }), undefined, false);
    await chrono.rendered.read(q, render);
    expect(chrono.kept).toEqual([]);
    expect(chrono.counts().tierReads).toBe(0); // kill switch: the tiers are not even read
    const later = setup(page());
    await later.rendered.read({ ...q, cursor: 'c' }, render);
    expect(later.kept).toEqual([]);
    expect(later.counts()).toEqual({ tierReads: 0, pageReads: 1 });
  });

  it('ETags differ whenever bodies differ', () => {
    expect(etagOf('{"a":1}')).not.toBe(etagOf('{"a":2}'));
    expect(etagOf('x')).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
  });
});
