import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  batchOrderFor,
  boundsFor,
  DEFAULT_MIX,
  drawKind,
  MAX_PINS,
  nextMixedOp,
  parseMix,
  type GridView,
  type MixKind,
} from '../../../tools/loadtest/mix.js';
import { parseOptions } from '../../../tools/loadtest/options.js';
import { createRng } from '../../../tools/loadtest/rng.js';

const SEED = 20261202;
const ids = (xs: number[]) => xs.map(BigInt);

describe('parseMix', () => {
  it('reads the default and kind=weight lists; kinds not named get 0', () => {
    expect(parseMix('default')).toEqual(DEFAULT_MIX);
    expect(parseMix('moves=3, deletes=1')).toEqual({
      moves: 3,
      creates: 0,
      pins: 0,
      archive: 0,
      deletes: 1,
      batch: 0,
    });
  });

  it('refuses unknown kinds, malformed parts and an all-zero mix', () => {
    expect(() => parseMix('moves=1,resets=2')).toThrow(/unknown kind "resets"/);
    expect(() => parseMix('moves')).toThrow(/kind=weight/);
    expect(() => parseMix('moves=0')).toThrow(/every weight is 0/);
  });

  it('is an option of the load tester, regrid only, not with a scenario', () => {
    expect(parseOptions(['--mix', 'default']).mix).toEqual(DEFAULT_MIX);
    expect(parseOptions([]).mix).toBeNull();
    expect(() => parseOptions(['--mix', 'moves=x'])).toThrow(/--mix: "moves=x"/);
    expect(() => parseOptions(['--mix', 'default', '--compare'])).toThrow(/regrid only/);
    expect(() =>
      parseOptions(['--mix', 'default', '--scenario', 'hot', '--profiles', '1']),
    ).toThrow(/no --scenario/);
  });
});

describe('drawKind', () => {
  it('follows the weights (20,000 seeded draws within 1.5 points of each share)', () => {
    const rng = createRng(SEED);
    const counts: Record<string, number> = {};
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      const k = drawKind(rng, DEFAULT_MIX);
      counts[k] = (counts[k] ?? 0) + 1;
    }
    for (const [k, w] of Object.entries(DEFAULT_MIX)) {
      expect(Math.abs((100 * (counts[k] ?? 0)) / n - w), k).toBeLessThan(1.5);
    }
  });

  it('never draws a kind of weight 0', () => {
    const rng = createRng(SEED);
    const mix = parseMix('moves=1,batch=1');
    const seen = new Set<MixKind>();
    for (let i = 0; i < 2_000; i++) seen.add(drawKind(rng, mix));
    expect([...seen].sort()).toEqual(['batch', 'moves']);
  });
});

const view = (live: number[], pins: number[] = [], archived: number[] = []): GridView => ({
  live: ids(live),
  pins: ids(pins),
  archived: ids(archived),
});

describe('nextMixedOp', () => {
  const bounds = boundsFor(10); // low 5, high 15, archived 2
  const only = (spec: string, v: GridView, seed = SEED) =>
    nextMixedOp(createRng(seed), parseMix(spec), v, bounds, 0.25);

  it('turns deletes and archives into creates on a grid at its floor', () => {
    expect(only('deletes=1', view([1, 2, 3, 4, 5]))).toEqual({ kind: 'create' });
    expect(only('archive=1', view([1, 2, 3, 4, 5]))).toEqual({ kind: 'create' });
    expect(only('deletes=1', view([1, 2, 3, 4, 5, 6])).kind).toBe('delete');
  });

  it('turns a create on a full grid into a delete, and unarchives at the archive bound', () => {
    const full = view(Array.from({ length: 15 }, (_, i) => i + 1));
    expect(only('creates=1', full).kind).toBe('delete');
    expect(only('archive=1', view([1, 2, 3, 4, 5, 6, 7], [], [8, 9]))).toMatchObject({
      kind: 'unarchive',
    });
  });

  it('never pins more than three, and unpins from a full set', () => {
    const op = only('pins=1', view([1, 2, 3, 4, 5, 6], [1, 2, 3]));
    expect(op.kind).toBe('unpin');
    expect((op as { pins: readonly bigint[] }).pins).toHaveLength(2);
  });

  it('property: every operation names posts the view allows, and grids stay within bounds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
        const rng = createRng(seed);
        const live = new Set(ids([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]));
        let pins: bigint[] = [];
        const archived = new Set<bigint>();
        let next = 100n;
        for (let i = 0; i < 300; i++) {
          const v = { live: [...live], pins, archived: [...archived] };
          const op = nextMixedOp(rng, DEFAULT_MIX, v, bounds, 0.25);
          switch (op.kind) {
            case 'create':
              live.add(next++);
              break;
            case 'delete':
            case 'archive':
              expect(live.has(op.postId)).toBe(true);
              live.delete(op.postId);
              pins = pins.filter((p) => p !== op.postId);
              if (op.kind === 'archive') archived.add(op.postId);
              break;
            case 'unarchive':
              expect(archived.delete(op.postId)).toBe(true);
              live.add(op.postId);
              break;
            case 'pin':
            case 'unpin':
              expect(op.pins.length).toBeLessThanOrEqual(MAX_PINS);
              expect(new Set(op.pins).size).toBe(op.pins.length);
              for (const p of op.pins) expect(live.has(p)).toBe(true);
              pins = [...op.pins];
              break;
            case 'move':
              expect(live.has(op.postId) && !pins.includes(op.postId)).toBe(true);
              if (op.after !== null) {
                expect(op.after).not.toBe(op.postId);
                expect(pins.includes(op.after)).toBe(false);
              }
              break;
            case 'batch':
              break;
          }
          expect(live.size).toBeGreaterThanOrEqual(bounds.low);
          expect(live.size).toBeLessThanOrEqual(bounds.high);
        }
      }),
      { seed: SEED, numRuns: 60 },
    );
  });
});

describe('batchOrderFor', () => {
  it('property: a permutation of the order that differs from it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 40 }), fc.integer(), (n, seed) => {
        const order = Array.from({ length: n }, (_, i) => BigInt(i + 1));
        const out = batchOrderFor(createRng(seed), order);
        expect([...out].sort((a, b) => (a < b ? -1 : 1))).toEqual(order);
        expect(out).not.toEqual(order);
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  it('leaves a one-post order as it is', () => {
    expect(batchOrderFor(createRng(1), [5n])).toEqual([5n]);
  });
});
