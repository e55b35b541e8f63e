/** The undo record written from each move attempt's plan (service/undo.ts). */
import type { ServiceDeps } from '../../../src/service/deps.js';
import { describe, expect, it } from 'vitest';
import type { PlanContext } from '../../../src/service/write/grid-writer.js';
import { undoRecorder } from '../../../src/service/ops/undo.js';
import { EMPTY_HEAD } from '../../../src/store/grid-store.js';
import { UNKNOWN_RELABELS, type MoveRecord } from '../../../src/store/moves-store.js';

function fakeDeps() {
  const puts: MoveRecord[] = [];
  const deps = { moves: { put: async (r: MoveRecord) => void puts.push(r) } };
  return { puts, deps: deps as unknown as ServiceDeps };
}

const ctx = (nextVersion: bigint, attempt: number, outcomeUnknown: boolean): PlanContext => ({
  profileId: 7n,
  snapshot: { head: { ...EMPTY_HEAD, version: nextVersion - 1n }, overrides: [] },
  nextVersion,
  attempt,
  outcomeUnknown,
});
const plan = (key: bigint, above: bigint, relabelled: number) => ({
  relabelled,
  previous: { key, above: { postId: above, key: above } },
});

describe('undoRecorder', () => {
  it('writes the whole record with the version each attempt would commit', async () => {
    const { puts, deps } = fakeDeps();
    const rec = undoRecorder(deps, 1n, '00000000-0000-4000-8000-000000000001');
    await rec(ctx(4n, 1, false), plan(50n, 9n, 0));
    await rec(ctx(6n, 2, false), plan(51n, 8n, 2)); // lost CAS: re-planned on a newer snapshot
    expect(puts.map((r) => [r.version, r.relabelled, r.prevKey, r.prevAfter])).toEqual([
      [4n, 0, 50n, 9n],
      [6n, 2, 51n, 8n],
    ]);
  });

  it('keeps the position read before a timeout and gives up the exact restore after it', async () => {
    const { puts, deps } = fakeDeps();
    const rec = undoRecorder(deps, 1n, '00000000-0000-4000-8000-000000000002');
    await rec(ctx(4n, 1, false), plan(50n, 9n, 0));
    // The first attempt may have committed: this snapshot may already show the moved post.
    await rec(ctx(5n, 2, true), plan(77n, 3n, 0));
    expect(puts[1]).toMatchObject({ version: 5n, relabelled: UNKNOWN_RELABELS, prevKey: 50n });
    expect(puts[1]!.prevAfter).toBe(9n);
  });
});
