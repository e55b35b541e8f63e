/**
 * The two sampled correctness checks of design §7.3 and §8, run beside real reads and never on
 * their critical path: a check is started after the read has its answer, is not awaited, and
 * swallows its own errors (counted as `error`). Counters live in obs/signals.ts.
 *
 * - Shadow read: for a sample (SHADOW_READ_SAMPLE) of first pages served with overrides, if the
 *   profile has no overrides at that version, the page must equal the plain chronological read
 *   of grid_posts (the old query): pins, then the newest unpinned posts.
 * - Cache sample: for a sample (CACHE_SAMPLE_RATE) of first-page cache hits, if Cassandra's
 *   version is still the cached one, the cached order must equal Cassandra's merged order.
 * Both re-read the head after the comparison's rows: if the grid changed meanwhile, the check
 * compared two different states and is dropped (neither match nor mismatch).
 */
import { compareGridVersions, type GridVersion } from '../../domain/grid-version.js';
import type { CachedOrder, PageHead } from '../../domain/grid-source.js';
import type { GridEntry } from '../../domain/merge.js';
import { cacheSamples, shadowReads, type CheckResult } from '../../obs/signals.js';
import type { CassandraGridReader } from '../../store/grid-reader.js';
import type { GridPage, PageQuery } from './read-page.js';

export interface ReadCheckSettings {
  readonly shadowSample: number;
  readonly cacheSample: number;
  readonly random?: () => number;
  /** Where a mismatch is described (the first differing position). */
  readonly log?: (message: string, fields: Record<string, unknown>) => void;
}

export interface ReadChecks {
  /** After the page source served a head: maybe sample it, if it is a cache hit with an order. */
  sampleCacheHit(profileId: bigint, read: PageHead): void;
  /** After a first page read with overrides: maybe shadow-read it. */
  afterFirstPage(q: PageQuery, page: GridPage): void;
  /** Resolves when every check started so far has finished (tests, shutdown). */
  settled(): Promise<void>;
}

type Check = () => Promise<CheckResult | 'skipped'>;
type Signal = typeof shadowReads;

const same = (a: GridVersion, b: GridVersion) => compareGridVersions(a, b) === 0;

/** Index of the first position where the two ID lists differ, or -1. */
function firstDifference(a: readonly bigint[], b: readonly bigint[]): number {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return -1;
}

export function createReadChecks(
  reader: CassandraGridReader,
  settings: ReadCheckSettings,
): ReadChecks {
  const random = settings.random ?? Math.random;
  const log = settings.log ?? ((m, f) => console.warn(JSON.stringify({ msg: m, ...stringify(f) })));
  const running = new Set<Promise<void>>();

  function start(signal: Signal, check: Check): void {
    const p = check()
      .catch((): CheckResult => 'error')
      .then((result) => {
        if (result !== 'skipped') signal.inc({ result });
      })
      .finally(() => running.delete(p));
    running.add(p);
  }

  function report(kind: string, profileId: bigint, served: bigint[], truth: bigint[]) {
    const at = firstDifference(served, truth);
    if (at < 0) return 'match' as const;
    log(`${kind} mismatch`, {
      profile_id: profileId,
      position: at,
      served: served[at],
      expected: truth[at],
    });
    return 'mismatch' as const;
  }

  /** Still the state the comparison assumed? (Read after the rows: see the header.) */
  const unchanged = async (profileId: bigint, v: GridVersion) =>
    same(await reader.readHead(profileId), v);

  async function shadow(q: PageQuery, page: GridPage) {
    const { head, rows } = await reader.readOverrides(q.profileId);
    if (rows.length > 0 || !same(head, page)) return 'skipped';
    const pins = new Set(head.pins);
    const plain: bigint[] = [...head.pins];
    for await (const id of reader.chronological(q.profileId, { limit: q.limit })) {
      if (pins.has(id)) continue;
      plain.push(id);
      if (plain.length === head.pins.length + q.limit) break;
    }
    if (!(await unchanged(q.profileId, page))) return 'skipped';
    const served = page.entries.map((e) => e.postId);
    return report('shadow read', q.profileId, served, plain);
  }

  async function cacheSample(profileId: bigint, pins: readonly bigint[], order: CachedOrder) {
    const { head, rows } = await reader.readOverrides(profileId);
    if (!same(head, order)) return 'skipped';
    // One more than cached: a complete cached order must also end where Cassandra's does.
    const n = order.entries.length + (order.complete ? 1 : 0);
    const truth = await reader.entries(profileId, rows, { limit: n, exclude: head.pins });
    if (!(await unchanged(profileId, order))) return 'skipped';
    const ids = (xs: readonly GridEntry[]) => xs.map((e) => e.postId);
    const served = [...pins, ...ids(order.entries)];
    const result = report('cache sample', profileId, served, [...head.pins, ...ids(truth)]);
    if (result === 'mismatch') return result;
    // Same posts: the keys (what the next page's cursor carries) must agree too.
    const at = order.entries.findIndex((e, i) => e.key !== truth[i]?.key);
    if (at < 0) return result;
    log('cache sample mismatch', {
      profile_id: profileId,
      position: pins.length + at,
      served_key: order.entries[at]?.key,
      expected_key: truth[at]?.key,
    });
    return 'mismatch';
  }

  return {
    sampleCacheHit(profileId, read) {
      const { order } = read;
      if (read.cached && order && random() < settings.cacheSample) {
        start(cacheSamples, () => cacheSample(profileId, read.head.pins, order));
      }
    },
    afterFirstPage(q, page) {
      if (random() < settings.shadowSample) start(shadowReads, () => shadow(q, page));
    },
    async settled() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}

function stringify(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(fields).map(([k, v]) => [k, typeof v === 'bigint' ? v.toString() : v]),
  );
}
