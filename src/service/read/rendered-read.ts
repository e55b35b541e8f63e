/**
 * A grid page as the response sends it: the rendered body and its strong ETag. First pages go
 * through the rendered-page tiers (cache/rendered-pages.ts) before any page read; what a read
 * renders is kept there only when its entries came from the cache entry of exactly that state
 * (`fromStateCache`), so a rendering stored under (generation, version) can only be that state's.
 *
 * The kill switch (reads.overrides off) skips the tiers both ways: a chronological page is not
 * the grid's arrangement and must not be stored under its state. A sampled share of first pages
 * (CACHE_SAMPLE_RATE, at most CACHE_SAMPLE_MAX_PER_S a second: sample-budget.ts) also skips them,
 * so the order cache's sampled checks (read-checks.ts) keep seeing real traffic.
 */
import { createHash } from 'node:crypto';
import type { RenderedPage, RenderedPages } from '../../cache/rendered-pages.js';
import type { Flags } from '../flags.js';
import type { GridPage, PageQuery } from './read-page.js';
import type { SampleBudget } from './sample-budget.js';

/** The caller's view of a page (http/views.ts): the JSON text the response carries. */
export type RenderPage = (page: GridPage) => string;

export type RenderedRead = (q: PageQuery, render: RenderPage) => Promise<RenderedPage>;

/** Strong validator of a body: 128 bits of its SHA-256, quoted as HTTP wants it. */
export const etagOf = (body: string): string =>
  `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;

export function createRenderedRead(
  readPage: (q: PageQuery) => Promise<GridPage>,
  pages: RenderedPages | undefined,
  flags: Pick<Flags, 'isEnabled'>,
  sampleShare: number,
  budget: SampleBudget,
  random: () => number = Math.random,
): RenderedRead {
  const sampled = () => random() < sampleShare && budget.take();
  return async (q, render) => {
    const first = q.cursor === undefined;
    if (pages && first && !sampled() && (await flags.isEnabled('reads.overrides'))) {
      const hit = await pages.read(q.profileId, q.limit, q.minVersion);
      if (hit) return hit;
    }
    const page = await readPage(q);
    const body = render(page);
    const rendered = {
      generation: page.generation,
      version: page.version,
      body,
      etag: etagOf(body),
    };
    if (pages && first && page.fromStateCache && !page.chronological) {
      pages.remember(q.profileId, q.limit, rendered);
    }
    return rendered;
  };
}
