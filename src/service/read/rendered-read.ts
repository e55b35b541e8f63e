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
 *
 * `now` is the same first-page decision without waiting (http/page-front.ts answers with it): the
 * process-local tier only, and only when the flags need no refresh; its sample draw is handed to
 * the read when it cannot answer, so a request is drawn once whichever path serves it.
 */
import { createHash } from 'node:crypto';
import type { RenderedPage, RenderedPages } from '../../cache/rendered-pages.js';
import type { Flags } from '../flags.js';
import type { GridPage, PageQuery } from './read-page.js';
import type { SampleBudget } from './sample-budget.js';

/** The caller's view of a page (http/views.ts): the JSON text the response carries. */
export type RenderPage = (page: GridPage) => string;

/** Why `now` did not answer: whether it drew this request for the sampled checks. */
export interface NotNow {
  readonly sampled: boolean;
}

export interface RenderedRead {
  /** `sampled`: the draw `now` made for this request (so a request is drawn once), else drawn here. */
  (q: PageQuery, render: RenderPage, sampled?: boolean): Promise<RenderedPage>;
  /**
   * A first page without waiting: the process-local rendering, when the flags need no refresh
   * and the request is not drawn for a sample. It answers only what the read above would answer
   * from the same tier (the same draw, kill switch and min_version rules).
   */
  now(q: PageQuery): RenderedPage | NotNow;
}

/** Strong validator of a body: 128 bits of its SHA-256, quoted as HTTP wants it. */
export const etagOf = (body: string): string =>
  `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;

const SAMPLED: NotNow = { sampled: true };
const NOT_SAMPLED: NotNow = { sampled: false };

export function createRenderedRead(
  readPage: (q: PageQuery) => Promise<GridPage>,
  pages: RenderedPages | undefined,
  flags: Pick<Flags, 'isEnabled' | 'enabledNow'>,
  sampleShare: number,
  budget: SampleBudget,
  random: () => number = Math.random,
): RenderedRead {
  const draw = () => random() < sampleShare && budget.take();
  const overridesOn = () =>
    flags.enabledNow('reads.overrides') ?? flags.isEnabled('reads.overrides');
  const read = async (q: PageQuery, render: RenderPage, sampled?: boolean) => {
    const first = q.cursor === undefined;
    if (pages && first && !(sampled ?? draw()) && (await overridesOn())) {
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
  const now = (q: PageQuery): RenderedPage | NotNow => {
    if (!pages || q.cursor !== undefined) return NOT_SAMPLED;
    if (draw()) return SAMPLED;
    if (flags.enabledNow('reads.overrides') !== true) return NOT_SAMPLED;
    return pages.peek(q.profileId, q.limit, q.minVersion) ?? NOT_SAMPLED;
  };
  return Object.assign(read, { now });
}
