/**
 * Cold and warm latency of the first page and page 5 as the override count grows. Every profile
 * gets its own server, then the reads are taken in rounds that visit every profile in turn (one
 * sample of each of the four reads per profile per round), so load from other work on the
 * machine lands on every override count alike instead of on whichever one ran at the time.
 * Medians of `samples` rounds; the warm figures are sub-millisecond, so they need many samples.
 */
import { cacheKeys, renderedSuffix } from '../../src/cache/keys.js';
import { timedGet } from './http.js';
import type { Bench } from './measure.js';

export interface DepthReport {
  readonly overrides: number;
  /** Reordered copies built for the profile before the measurement (0 below the threshold). */
  readonly copiesBuilt: number;
  readonly coldFirstPageMs: number;
  readonly warmFirstPageMs: number;
  readonly page5Ms: number;
  readonly warmPage5Ms: number;
  /** Median Cassandra statements per read, same four reads (bodies included when cold). */
  readonly statements: {
    readonly coldFirstPage: number;
    readonly warmFirstPage: number;
    readonly page5: number;
    readonly warmPage5: number;
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.floor(s.length / 2)]! * 100) / 100;
};

const firstPage = (profileId: bigint) => `/v1/profiles/${profileId}/grid?limit=24`;

/** Serves the profile, walks it to page 5, waits for its copy, and names its cache keys. */
async function prepare(bench: Bench, profileId: bigint, overrides: number) {
  const s = await bench.serve({});
  const first = s.base + firstPage(profileId);
  let cursor: string | undefined;
  const bodies = new Set<string>();
  for (let page = 1; page <= 4; page++) {
    const url = cursor ? `${first}&cursor=${cursor}` : first;
    const json = JSON.parse((await timedGet(url)).body);
    for (const item of json.items) bodies.add(item.id);
    cursor = json.next_cursor;
  }
  const page5 = `${first}&cursor=${cursor}`;
  for (const item of JSON.parse((await timedGet(page5)).body).items) bodies.add(item.id);
  // A profile with many overrides gets its reordered copy off the request path: measure the
  // state users see once it is built (until then pages merge, as the 0-override rows do).
  await s.service.copies.settled();
  // The profile does not change during this measurement, so its cache keys are known exactly.
  const { generation, version } = await s.service.reader.readHead(profileId);
  const keys = [
    cacheKeys.summary(profileId),
    cacheKeys.lease(profileId),
    cacheKeys.rendered(profileId, generation, version, renderedSuffix(24, bench.cursorKeyId)),
    ...[...bodies].map((id) => cacheKeys.post(BigInt(id))),
  ];
  const forget = async () => {
    await bench.guard.client.del(keys);
  };
  return { s, overrides, first, page5, forget, copiesBuilt: s.service.copies.stats.built };
}

type Read = 'coldFirstPage' | 'warmFirstPage' | 'page5' | 'warmPage5';
/**
 * In this order within a round: a cold read leaves the state the warm one after it reads. A
 * first page read after a cold one is an order hit that renders and keeps the page (the cold
 * read keeps no rendering: it did not come from the state's cache entry); the steady state of a
 * warm first page is the read after that one, so that read is taken untimed (`settle`).
 */
const READS: ReadonlyArray<readonly [Read, 'first' | 'page5', 'cold' | 'settle' | 'warm']> = [
  ['coldFirstPage', 'first', 'cold'],
  ['warmFirstPage', 'first', 'settle'],
  ['page5', 'page5', 'cold'],
  ['warmPage5', 'page5', 'warm'],
];

/** Cold = nothing of the profile in Redis (summary, orders, override lists, bodies read). */
export async function depths(
  bench: Bench,
  profiles: ReadonlyArray<{ readonly profileId: bigint; readonly overrides: number }>,
  samples: number,
): Promise<DepthReport[]> {
  const prepared: Array<Awaited<ReturnType<typeof prepare>>> = [];
  try {
    for (const p of profiles) prepared.push(await prepare(bench, p.profileId, p.overrides));
    const taken = prepared.map(
      () => new Map(READS.map(([r]) => [r, { ms: [] as number[], st: [] as number[] }])),
    );
    for (let i = 0; i < samples; i++) {
      for (const [at, p] of prepared.entries()) {
        for (const [read, which, how] of READS) {
          const url = which === 'first' ? p.first : p.page5;
          if (how === 'cold') await p.forget();
          if (how === 'settle') await timedGet(url);
          const q0 = bench.queries();
          const ms = (await timedGet(url)).ms;
          const slot = taken[at]!.get(read)!;
          slot.ms.push(ms);
          slot.st.push(bench.queries() - q0);
        }
      }
    }
    return prepared.map((p, at) => {
      const of = (r: Read) => taken[at]!.get(r)!;
      return {
        overrides: p.overrides,
        copiesBuilt: p.copiesBuilt,
        coldFirstPageMs: median(of('coldFirstPage').ms),
        warmFirstPageMs: median(of('warmFirstPage').ms),
        page5Ms: median(of('page5').ms),
        warmPage5Ms: median(of('warmPage5').ms),
        statements: {
          coldFirstPage: median(of('coldFirstPage').st),
          warmFirstPage: median(of('warmFirstPage').st),
          page5: median(of('page5').st),
          warmPage5: median(of('warmPage5').st),
        },
      };
    });
  } finally {
    for (const p of prepared) await p.s.close();
  }
}

/** One profile alone (bench/overrides.ts alternates profiles itself). */
export const depth = async (bench: Bench, profileId: bigint, overrides: number, samples: number) =>
  (await depths(bench, [{ profileId, overrides }], samples))[0]!;
