import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  feedMember,
  feedOpOf,
  feedScore,
  type ChangeEvent,
} from '../../../examples/feed/decide.js';
import { FeedModel } from '../../../examples/feed/model.js';
import { buildWorkload, deliveries, prng, type Workload } from './workload.js';

const PROFILES = ['101', '102', '103', '104'];
const FOLLOWERS = ['9001', '9002', '9003'];

/** A follow graph from the seed: every follower follows a non-empty subset of the profiles. */
function graphOf(rand: () => number): Map<string, string[]> {
  return new Map(
    FOLLOWERS.map((f) => {
      const some = PROFILES.filter(() => rand() < 0.5);
      return [f, some.length > 0 ? some : [PROFILES[0]!]];
    }),
  );
}

const snapshot = (m: FeedModel) => JSON.stringify(FOLLOWERS.map((f) => [...m.timeline(f)].sort()));

/**
 * Drives the model like the consumer does: each delivery to every follower of its profile; an
 * event some follower answers `gap` is parked and retried after every applied one. Checks on the
 * way that a no-feed kind and a duplicate change no timeline, and counts, along the order the
 * events were applied, how often each post newly enters each follower's followed grids.
 */
function drive(w: Workload, graph: Map<string, string[]>, order: ChangeEvent[]) {
  const model = new FeedModel();
  for (const [f, ps] of graph)
    for (const p of ps) model.follow(f, p, { generation: 1n, version: 0n });
  const gridAt = new Map(PROFILES.map((p) => [p, new Set<string>()]));
  const stepOf = (e: ChangeEvent) => w.steps.get(e.profile_id)![Number(e.version) - 1]!.gridAfter;
  const expectedInserts = new Map<string, number>();
  const union = (f: string) => new Set(graph.get(f)!.flatMap((p) => [...gridAt.get(p)!]));
  let parked: ChangeEvent[] = [];

  const deliver = (e: ChangeEvent): boolean => {
    const before = snapshot(model);
    const unions = new Map(FOLLOWERS.map((f) => [f, union(f)]));
    const verdicts = model.followersOf(e.profile_id).map((f) => model.apply(f, e).verdict);
    if (verdicts.includes('gap')) {
      expect(verdicts.every((v) => v === 'gap')).toBe(true);
      expect(snapshot(model)).toBe(before);
      return false;
    }
    if (verdicts.every((v) => v === 'duplicate') || feedOpOf(e.kind) === 'none') {
      expect(snapshot(model)).toBe(before);
    }
    if (verdicts.includes('apply')) {
      gridAt.set(e.profile_id, new Set(stepOf(e)));
      for (const f of FOLLOWERS) {
        for (const post of union(f)) {
          if (unions.get(f)!.has(post)) continue;
          const k = `${f}|${feedMember(BigInt(post))}`;
          expectedInserts.set(k, (expectedInserts.get(k) ?? 0) + 1);
        }
      }
    }
    return true;
  };

  for (const e of order) {
    if (!deliver(e)) {
      parked.push(e);
      continue;
    }
    for (let progress = true; progress;) {
      const still = parked.filter((p) => !deliver(p));
      progress = still.length < parked.length;
      parked = still;
    }
  }
  return { model, parked, expectedInserts };
}

describe('feed model: fan-out on write with dedupe by (profile, version)', () => {
  it('ends with every follower’s timeline = the posts on the grids it follows, each inserted once per return', () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 1, max: 160 }), (seed, writes) => {
        const rand = prng(seed);
        const w = buildWorkload(rand, PROFILES, writes);
        const graph = graphOf(rand);
        const { model, parked, expectedInserts } = drive(w, graph, deliveries(rand, w));
        expect(parked).toEqual([]);
        for (const [f, ps] of graph) {
          const onGrids = new Set(
            ps.flatMap((p) => [...(w.steps.get(p)!.at(-1)?.gridAfter ?? [])]),
          );
          const expected = [...onGrids].map((id) => [
            feedMember(BigInt(id)),
            feedScore(BigInt(id)),
          ]);
          expect([...model.timeline(f)].sort()).toEqual(expected.sort());
          // Every created post on a followed grid is there; every archived/deleted one gone.
          for (const id of w.created) {
            expect(model.timeline(f).has(feedMember(BigInt(id)))).toBe(onGrids.has(id));
          }
        }
        const inserts = [...model.inserts].sort();
        expect(inserts).toEqual([...expectedInserts].sort());
      }),
      { numRuns: 150 },
    );
  });

  it('moves, pins, resets and batch orders never insert or re-position a post', () => {
    const model = new FeedModel();
    model.follow('9001', '101');
    const post = '4611686018427387904';
    const at = (version: number, kind: ChangeEvent['kind']): ChangeEvent => ({
      profile_id: '101',
      version: String(version),
      generation: '1',
      at: '2026-12-02T13:00:00.000Z',
      kind,
      post_ids: [post],
    });
    expect(model.apply('9001', at(1, 'moved'))).toMatchObject({ verdict: 'apply', inserted: 0 });
    expect(model.timeline('9001').size).toBe(0);
    expect(model.apply('9001', at(2, 'created'))).toMatchObject({ inserted: 1 });
    for (const [i, kind] of (
      ['moved', 'pinned', 'unpinned', 'reset', 'batch_reordered', 'undone'] as const
    ).entries()) {
      expect(model.apply('9001', at(3 + i, kind))).toMatchObject({ inserted: 0, refused: 1 });
    }
    expect([...model.timeline('9001')]).toEqual([[post, feedScore(BigInt(post))]]);
    expect(model.apply('9001', at(2, 'created')).verdict).toBe('duplicate');
    expect(model.inserts.get(`9001|${post}`)).toBe(1);
  });

  it('applies over a gap only when told to (the consumer’s gap timeout)', () => {
    const model = new FeedModel();
    model.follow('9001', '101', { generation: 1n, version: 0n });
    const e: ChangeEvent = {
      profile_id: '101',
      version: '3',
      generation: '1',
      at: '2026-12-02T13:00:00.000Z',
      kind: 'created',
      post_ids: ['4611686018427387904'],
    };
    expect(model.apply('9001', e)).toMatchObject({ verdict: 'gap', inserted: 0 });
    expect(model.apply('9001', e, true)).toMatchObject({ verdict: 'forced', inserted: 1 });
    expect(model.apply('9001', { ...e, version: '2' }, true).verdict).toBe('duplicate');
  });

  it('keeps a post another followed grid holds, and drops it when the last one lets go', () => {
    const model = new FeedModel();
    model.follow('9001', '101');
    model.follow('9001', '102');
    const e = (profile: string, kind: ChangeEvent['kind']): ChangeEvent => ({
      profile_id: profile,
      version: kind === 'collaborator_accepted' || kind === 'collaborator_left' ? '2' : '1',
      generation: '1',
      at: '2026-12-02T13:00:00.000Z',
      kind,
      post_ids: ['4611686018427387904'],
    });
    model.apply('9001', e('101', 'created'));
    model.apply('9001', e('102', 'collaborator_accepted'));
    expect(model.apply('9001', { ...e('101', 'archived'), version: '2' })).toMatchObject({
      kept: 1,
    });
    expect(model.timeline('9001').size).toBe(1);
    expect(model.apply('9001', { ...e('102', 'collaborator_left'), version: '3' })).toMatchObject({
      removed: 1,
    });
    expect(model.timeline('9001').size).toBe(0);
  });

  it('an unfollow leaves exactly the posts of the grids still followed', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const rand = prng(seed);
        const w = buildWorkload(rand, PROFILES, 80);
        const graph = new Map(FOLLOWERS.map((f) => [f, [...PROFILES]]));
        const { model } = drive(w, graph, deliveries(rand, w, 0));
        const gone = PROFILES[Math.floor(rand() * PROFILES.length)]!;
        model.unfollow('9001', gone);
        const kept = PROFILES.filter((p) => p !== gone);
        const onGrids = new Set(
          kept.flatMap((p) => [...(w.steps.get(p)!.at(-1)?.gridAfter ?? [])]),
        );
        expect([...model.timeline('9001').keys()].sort()).toEqual(
          [...onGrids].map((id) => feedMember(BigInt(id))).sort(),
        );
      }),
      { numRuns: 50 },
    );
  });
});
