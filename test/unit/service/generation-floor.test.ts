/**
 * One name, one state (issue 31): a batch planned on a head that is behind a state already
 * acknowledged or published commits in a new generation (service/write-line/commit.ts), and the
 * change stream's watermark orders (generation, version) the same way (cache/change-stream.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatWatermark, parseWatermark } from '../../../src/cache/change-stream.js';
import { compareGridVersions, type GridVersion } from '../../../src/domain/grid-version.js';
import { planBatch, versionFloor } from '../../../src/service/write-line/commit.js';
import type {
  GridPlanner,
  GridRowsRead,
  QueuedWrite,
  WriteOutcome,
} from '../../../src/service/write-line/types.js';
import { EMPTY_HEAD } from '../../../src/store/grid-rows.js';

const at = (generation: bigint, version: bigint): GridVersion => ({ generation, version });

describe('versionFloor', () => {
  it('is undefined when nothing known is ahead of the head', () => {
    expect(versionFloor(at(1n, 7n), [])).toBeUndefined();
    expect(versionFloor(at(1n, 7n), [undefined, at(1n, 7n), at(1n, 3n)])).toBeUndefined();
    // A newer generation's head is ahead of every state of an older one, whatever the versions.
    expect(versionFloor(at(2n, 4n), [at(1n, 9n)])).toBeUndefined();
  });

  it('is one above every generation seen when something known is ahead', () => {
    expect(versionFloor(at(1n, 7n), [at(1n, 9n)])).toBe(2n);
    expect(versionFloor(at(1n, 7n), [undefined, at(1n, 8n)])).toBe(2n);
    // The bump itself was lost too: the next generation is above the lost one.
    expect(versionFloor(at(1n, 7n), [at(2n, 8n)])).toBe(3n);
    expect(versionFloor(at(3n, 2n), [at(3n, 5n), at(1n, 90n)])).toBe(4n);
  });

  it('makes the state it commits newer than every state known (property)', () => {
    const gv = fc.record({
      generation: fc.bigInt({ min: 1n, max: 5n }),
      version: fc.bigInt({ min: 0n, max: 50n }),
    });
    fc.assert(
      fc.property(
        gv,
        fc.array(fc.option(gv, { nil: undefined }), { maxLength: 4 }),
        (head, known) => {
          const g = versionFloor(head, known);
          const next = at(g ?? head.generation, head.version + 1n);
          for (const k of known) if (k) expect(compareGridVersions(next, k)).toBe(1);
          if (g === undefined) return;
          expect(g).toBeGreaterThan(head.generation);
        },
      ),
    );
  });
});

describe('a batch planned with a new generation', () => {
  const rows = {} as GridRowsRead;
  const store = { countGridRows: async () => 0n };
  const settings = { batch: { maxWrites: 32, maxRows: 200, maxBytes: 16 * 1024 } };
  const read = { head: { ...EMPTY_HEAD, version: 7n }, overrides: [] };
  function write(planner: GridPlanner<unknown>): QueuedWrite & { seen: bigint[] } {
    const w = {
      seen: [] as bigint[],
      planner: async (ctx: Parameters<GridPlanner<unknown>>[0]) => {
        w.seen.push(ctx.snapshot.head.generation);
        return planner(ctx);
      },
      options: {},
      scope: undefined,
      run: <T>(f: () => Promise<T>) => f(),
      outcomeUnknown: false,
      resolve: (_o: WriteOutcome<unknown>) => undefined,
      reject: () => undefined,
    };
    return w;
  }
  const move =
    (postId: bigint): GridPlanner<unknown> =>
    async (ctx) => ({
      kind: 'write',
      mutation: { upserts: [{ postId, sortKey: postId * 10n, movedVersion: ctx.nextVersion }] },
      result: postId,
    });
  const skip: GridPlanner<unknown> = async () => ({ kind: 'skip', result: 'already there' });

  it('sets the generation static in the batch and names every version and record with it', async () => {
    const ws = [write(skip), write(move(1n)), write(skip), write(move(2n))];
    const plan = await planBatch(store, 5n, read, ws, 1, { ...settings, generation: 2n }, rows);
    expect(plan.writes).toBe(2);
    expect(plan.mutation.statics?.generation).toBe(2n);
    expect(plan.after.head).toMatchObject({ generation: 2n, version: 9n });
    const records = plan.mutation.statics?.changeLog?.records ?? [];
    expect(records.map((r) => [r.generation, r.version])).toEqual([
      [2n, 8n],
      [2n, 9n],
    ]);
    // The skip before any write answers the state read, under its own name; later ones the
    // state the batch's earlier writes leave, in the new generation.
    const named = [...plan.now, ...plan.batched].map((p) =>
      p.kind === 'refused' ? undefined : [p.kind, p.generation, p.version],
    );
    expect(named).toEqual([
      ['skip', 1n, 7n],
      ['write', 2n, 8n],
      ['skip', 2n, 8n],
      ['write', 2n, 9n],
    ]);
    expect(ws[1]!.seen).toEqual([2n]); // planners (and the request ring) see the new name
  });

  it('writes no generation static without one', async () => {
    const plan = await planBatch(store, 5n, read, [write(move(1n))], 1, settings, rows);
    expect(plan.mutation.statics?.generation).toBeUndefined();
    expect(plan.after.head).toMatchObject({ generation: 1n, version: 8n });
  });
});

describe('the change stream watermark', () => {
  it('keeps the plain version form in generation 1 and names the generation after', () => {
    expect(formatWatermark(at(1n, 42n))).toBe('42');
    expect(formatWatermark(at(3n, 42n))).toBe('3:42');
    expect(parseWatermark('42')).toEqual(at(1n, 42n));
    expect(parseWatermark('3:42')).toEqual(at(3n, 42n));
    for (const bad of [null, undefined, '', 'x', '3:', ':4', '-1', '1:2:3']) {
      expect(parseWatermark(bad)).toBeUndefined();
    }
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 1n << 40n }),
        fc.bigInt({ min: 0n, max: 1n << 53n }),
        (g, v) => {
          expect(parseWatermark(formatWatermark(at(g, v)))).toEqual(at(g, v));
        },
      ),
    );
  });
});
