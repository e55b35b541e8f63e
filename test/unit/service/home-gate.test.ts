/**
 * The home check of the write line (service/write-line/home-region.ts), planned as the line plans
 * a batch (commit.ts `planBatch`): refused on a snapshot homed elsewhere, claimed on one without
 * a home (and only once per batch), untouched at home; a re-home is a write of its own.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planBatch } from '../../../src/service/write-line/commit.js';
import { homeGate, rehomePlanner } from '../../../src/service/write-line/home-region.js';
import type {
  GridPlanner,
  GridRowsRead,
  QueuedWrite,
} from '../../../src/service/write-line/types.js';
import { buildCasStatements } from '../../../src/store/grid-mutation.js';
import { EMPTY_HEAD } from '../../../src/store/grid-rows.js';

const bounds = { batch: { maxWrites: 32, maxRows: 200, maxBytes: 16 * 1024 } };
const store = { countGridRows: async () => 0n };
const rows = {} as GridRowsRead;
const policy = { region: 'dc2', mode: 'refuse' } as const;

const move =
  (postId: bigint): GridPlanner<unknown> =>
  async (ctx) => ({
    kind: 'write',
    mutation: { upserts: [{ postId, sortKey: postId * 10n, movedVersion: ctx.nextVersion }] },
    result: postId,
  });

const queued = (planner: GridPlanner<unknown>): QueuedWrite => ({
  planner,
  options: {},
  scope: undefined,
  outcomeUnknown: false,
  resolve: () => undefined,
  reject: () => undefined,
});

const snapshotHomed = (home: string | undefined, version = 4n) => ({
  head: { ...EMPTY_HEAD, version, ...(home !== undefined ? { homeRegion: home } : {}) },
  overrides: [],
});

const plan = (home: string | undefined, planners: GridPlanner<unknown>[]) =>
  planBatch(store, 1n, snapshotHomed(home), planners.map(queued), 1, bounds, rows);

describe('the home check inside the compare-and-set planner', () => {
  it('refuses every write of a grid homed elsewhere, naming the home; nothing is written', async () => {
    const p = await plan('dc1', [homeGate(move(7n), policy), homeGate(move(8n), policy)]);
    expect(p.writes).toBe(0);
    expect(p.batched).toEqual([]);
    for (const r of p.now) {
      expect(r.kind).toBe('refused');
      const err = (r as { error: { code: string; details: Record<string, unknown> } }).error;
      expect(err.code).toBe('wrong_region');
      expect(err.details['home_region']).toBe('dc1');
    }
  });

  it('a grid without a home is claimed by its first write, in the same batch', async () => {
    const p = await plan(undefined, [homeGate(move(7n), policy), homeGate(move(8n), policy)]);
    expect(p.writes).toBe(2);
    expect(p.mutation.statics?.homeRegion).toBe('dc2');
    expect(p.after.head.homeRegion).toBe('dc2');
    // The second write was planned on the claimed state: it claimed nothing itself.
    const second = p.batched[1]!;
    expect(second.kind === 'write' && second.mutation?.statics?.homeRegion).toBeFalsy();
  });

  it('at home the decision is the planner’s own (no home cell written)', async () => {
    const p = await plan('dc2', [homeGate(move(7n), policy)]);
    expect(p.writes).toBe(1);
    expect(p.mutation.statics?.homeRegion).toBeUndefined();
  });

  it('a re-home is one write of the home cell; to the same region it skips', async () => {
    const p = await plan('dc1', [rehomePlanner(1n, 'dc2', 'set')]);
    expect(p.writes).toBe(1);
    expect(p.mutation).toEqual({ statics: { homeRegion: 'dc2', changeLog: expect.anything() } });
    const same = await plan('dc2', [rehomePlanner(1n, 'dc2', 'set')]);
    expect(same.writes).toBe(0);
    const notFrom = await plan('dc3', [rehomePlanner(1n, 'dc2', 'failover', 'dc1')]);
    expect(notFrom.writes).toBe(0); // failover only moves grids still homed in the lost region
  });

  it('property: whatever the home and the writes, a batch writes only when home is here or unset, and never binds null', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(undefined, 'dc1', 'dc2'),
        fc.array(fc.bigInt({ min: 1n, max: 50n }), { minLength: 1, maxLength: 6 }),
        async (home, posts) => {
          const distinct = [...new Set(posts)];
          const p = await plan(
            home,
            distinct.map((id) => homeGate(move(id), policy)),
          );
          const writes = home === undefined || home === 'dc2';
          expect(p.writes).toBe(writes ? distinct.length : 0);
          if (!writes) return;
          expect(p.after.head.homeRegion).toBe('dc2');
          const statements = buildCasStatements(1n, 4n, 4n + BigInt(p.writes), p.mutation);
          for (const s of statements.slice(1)) expect(s.params).not.toContain(null);
          const homeCells = statements.filter((s) => s.query.includes('home_region'));
          expect(homeCells.length).toBe(home === undefined ? 1 : 0);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('the statement refuses an empty home rather than writing it', () => {
    expect(() => buildCasStatements(1n, 0n, 1n, { statics: { homeRegion: '' } })).toThrow(
      /non-empty/,
    );
    expect(() => rehomePlanner(1n, '', 'set')).toThrow();
  });
});
