import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  ADD_KINDS,
  feedMember,
  feedOpOf,
  feedScore,
  formatWatermark,
  NO_FEED_KINDS,
  parseEvent,
  parseWatermark,
  REMOVE_KINDS,
  verdictOf,
} from '../../../examples/feed/decide.js';
import { composeId, MAX_ID, TIMESTAMP_SHIFT } from '../../../src/domain/ids.js';

const event = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    profile_id: '12',
    version: '3',
    generation: '1',
    at: '2026-12-02T13:00:00.000Z',
    kind: 'moved',
    post_ids: ['987'],
    ...over,
  });

describe('feed: what a kind does to followers’ feeds', () => {
  it('adds on the kinds that put a post (back) on the grid', () => {
    expect(ADD_KINDS.map(feedOpOf)).toEqual(ADD_KINDS.map(() => 'add'));
    expect(feedOpOf('unarchived')).toBe('add');
    expect(feedOpOf('collaborator_accepted')).toBe('add');
  });

  it('removes on the kinds that take a post off the grid', () => {
    expect(REMOVE_KINDS.map(feedOpOf)).toEqual(REMOVE_KINDS.map(() => 'remove'));
  });

  it('does nothing on moves, pins, resets, batch orders, undos, declines and internal bumps', () => {
    expect(NO_FEED_KINDS.map(feedOpOf)).toEqual(NO_FEED_KINDS.map(() => 'none'));
    expect(NO_FEED_KINDS).toContain('moved');
    expect(NO_FEED_KINDS).toContain('batch_reordered');
  });

  it('covers every kind of the contract exactly once', () => {
    const all = [...ADD_KINDS, ...REMOVE_KINDS, ...NO_FEED_KINDS];
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBe(18);
  });
});

describe('feed: parsing a stream entry', () => {
  it('reads a contract event and keeps its strings', () => {
    expect(parseEvent(event())).toMatchObject({ profile_id: '12', version: '3', kind: 'moved' });
  });

  it('tolerates fields the write side may add', () => {
    expect(parseEvent(event({ grid_version: '3', extra: true }))?.kind).toBe('moved');
  });

  it.each([
    ['not JSON', '{'],
    ['an unknown kind', event({ kind: 'teleported' })],
    ['a numeric version', event({ version: 3 })],
    ['a padded ID', event({ post_ids: ['0987'] })],
    ['no post_ids', JSON.stringify({ ...JSON.parse(event()), post_ids: undefined })],
  ])('refuses %s', (_, json) => {
    expect(parseEvent(json)).toBeUndefined();
  });
});

describe('feed: timeline score and member', () => {
  const id = fc.bigInt({ min: 1n, max: MAX_ID });

  it('scores by the millisecond the ID encodes, exactly (a safe integer)', () => {
    fc.assert(
      fc.property(id, (x) => {
        const score = feedScore(x);
        expect(Number.isSafeInteger(score)).toBe(true);
        expect(BigInt(score)).toBe(x >> TIMESTAMP_SHIFT);
      }),
    );
    const ms = Date.UTC(2026, 11, 2, 13);
    expect(feedScore(composeId({ ms, worker: 5, sequence: 9 }))).toBe(ms - Date.UTC(2011, 0, 1));
  });

  it('orders (score, member) exactly as the IDs, as Redis orders a sorted set', () => {
    // Redis: by score, then by member bytes (for ASCII digits, JavaScript's string order).
    const sign = (x: number | bigint) => (x < 0 ? -1 : x > 0 ? 1 : 0);
    const redisOrder = (a: bigint, b: bigint) =>
      sign(feedScore(a) - feedScore(b)) ||
      (feedMember(a) < feedMember(b) ? -1 : feedMember(a) > feedMember(b) ? 1 : 0);
    fc.assert(
      fc.property(id, id, (a, b) => {
        expect(redisOrder(a, b)).toBe(sign(a - b));
        expect(BigInt(feedMember(a))).toBe(a);
      }),
    );
    // Same millisecond, the member breaks the tie: 10 ≺ 9 as strings, not once padded.
    const ms = Date.UTC(2026, 0, 1);
    expect(
      redisOrder(
        composeId({ ms, worker: 0, sequence: 9 }),
        composeId({ ms, worker: 0, sequence: 10 }),
      ),
    ).toBe(-1);
    expect(redisOrder(9n, 10n)).toBe(-1);
  });
});

describe('feed: the per-follower watermark', () => {
  const mark = (generation: bigint, version: bigint) => ({ generation, version });

  it.each([
    ['nothing applied yet', undefined, mark(1n, 7n), 'apply'],
    ['the next version', mark(1n, 6n), mark(1n, 7n), 'apply'],
    ['the same version again', mark(1n, 7n), mark(1n, 7n), 'duplicate'],
    ['an older version', mark(1n, 7n), mark(1n, 3n), 'duplicate'],
    ['a version past the next', mark(1n, 5n), mark(1n, 7n), 'gap'],
    ['a newer generation at the next version', mark(1n, 9n), mark(2n, 10n), 'apply'],
    ['a newer generation past the next version', mark(1n, 9n), mark(2n, 12n), 'gap'],
    ['a newer generation that restarted its versions', mark(1n, 9n), mark(2n, 1n), 'apply'],
    ['an older generation', mark(2n, 10n), mark(1n, 11n), 'duplicate'],
    ['an older generation below the watermark', mark(2n, 10n), mark(1n, 4n), 'duplicate'],
  ] as const)('%s', (_, stored, at, verdict) => {
    expect(verdictOf(stored, at)).toBe(verdict);
  });

  it('applies each version of a history once, whatever order and repeats it is delivered in', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 200 }),
        (deliveries) => {
          // A consumer that retries gaps later applies every version 1..max exactly once, in order.
          const max = Math.max(...deliveries);
          let stored: ReturnType<typeof mark> | undefined = mark(1n, 0n);
          const applied: number[] = [];
          const queue = [...deliveries, ...Array.from({ length: max }, (_, i) => i + 1)];
          const parked: number[] = [];
          for (const v of queue) {
            parked.push(v);
            for (let progress = true; progress;) {
              progress = false;
              for (const p of [...parked]) {
                const verdict = verdictOf(stored, mark(1n, BigInt(p)));
                if (verdict === 'gap') continue;
                parked.splice(parked.indexOf(p), 1);
                if (verdict === 'apply') {
                  applied.push(p);
                  stored = mark(1n, BigInt(p));
                  progress = true;
                }
              }
            }
          }
          expect(applied).toEqual(Array.from({ length: max }, (_, i) => i + 1));
          expect(parked).toEqual([]);
        },
      ),
    );
  });

  it('round-trips through its stored form', () => {
    expect(parseWatermark(formatWatermark(mark(3n, 12345678901234567890n)))).toEqual(
      mark(3n, 12345678901234567890n),
    );
    expect(parseWatermark(null)).toBeUndefined();
    expect(parseWatermark('3-4')).toBeUndefined();
  });
});
