/** The undo entry pushed from each move attempt's plan into the ring its batch writes (service/undo.ts). */
import type { ServiceDeps } from '../../../src/service/deps.js';
import { describe, expect, it } from 'vitest';
import type { UndoEntry } from '../../../src/domain/undo-ring.js';
import type { PlanContext } from '../../../src/service/write-line/write-line.js';
import { undoRecorder } from '../../../src/service/operations/move.js';
import { EMPTY_HEAD } from '../../../src/store/grid-store.js';
import { UNKNOWN_RELABELS } from '../../../src/store/moves-store.js';

// The recorder needs no store: only the retention of undo (no reads for an in-slice move).
const deps = { moves: { ttlS: 3600 } } as unknown as ServiceDeps;

const ctx = (
  nextVersion: bigint,
  attempt: number,
  outcomeUnknown: boolean,
  ring: UndoEntry[] = [],
): PlanContext => ({
  profileId: 7n,
  snapshot: {
    head: { ...EMPTY_HEAD, version: nextVersion - 1n, recentMoves: ring },
    overrides: [],
  },
  nextVersion,
  attempt,
  outcomeUnknown,
  rows: {} as PlanContext['rows'], // an in-slice move reads no rows
});
const plan = (key: bigint, above: bigint, relabelled: number) => ({
  relabelled,
  previous: { key, above: { postId: above, key: above } },
});
const ID1 = '00000000-0000-4000-8000-000000000001';

describe('undoRecorder', () => {
  it('pushes the whole entry with the version each attempt would commit, on the ring it read', async () => {
    const rec = undoRecorder(deps, 1n, ID1);
    const first = (await rec(ctx(4n, 1, false), plan(50n, 9n, 0))).recentMoves!;
    expect(first.map((r) => [r.moveId, r.version, r.relabelled, r.prevKey, r.prevAfter])).toEqual([
      [ID1, 4n, 0, 50n, 9n],
    ]);
    // Lost CAS: re-planned on a newer snapshot whose ring holds another move's entry.
    const other = { ...first[0]!, moveId: '00000000-0000-4000-8000-0000000000ff', version: 5n };
    const second = (await rec(ctx(6n, 2, false, [other]), plan(51n, 8n, 2))).recentMoves!;
    expect(second.map((r) => [r.moveId, r.version, r.relabelled, r.prevKey, r.prevAfter])).toEqual([
      [ID1, 6n, 2, 51n, 8n],
      [other.moveId, 5n, 0, 50n, 9n],
    ]);
  });

  it('keeps the position read before a timeout and gives up the exact restore after it', async () => {
    const rec = undoRecorder(deps, 1n, '00000000-0000-4000-8000-000000000002');
    await rec(ctx(4n, 1, false), plan(50n, 9n, 0));
    // The first attempt may have committed: this snapshot may already show the moved post.
    const ring = (await rec(ctx(5n, 2, true), plan(77n, 3n, 0))).recentMoves!;
    expect(ring).toHaveLength(1);
    expect(ring[0]).toMatchObject({ version: 5n, relabelled: UNKNOWN_RELABELS, prevKey: 50n });
    expect(ring[0]!.prevAfter).toBe(9n);
  });
});
