import { errors } from 'cassandra-driver';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../src/domain/errors.js';
import { mapUnavailable, NotSent, unavailable } from '../../../src/store/cql-errors.js';
import { EMPTY_HEAD } from '../../../src/store/grid-rows.js';
import { planBatch as planRound } from '../../../src/service/write-line/commit.js';
import type {
  GridPlanner,
  GridRowsRead,
  QueuedWrite as GroupMember,
} from '../../../src/service/write-line/types.js';

const snapshot = { head: EMPTY_HEAD, overrides: [] };
const bounds = { batch: { maxWrites: 32, maxRows: 200, maxBytes: 16 * 1024 } };
const store = { countGridRows: async () => 0n };
/** The planners here read no rows. */
const rows = {} as GridRowsRead;

function member(planner: GridPlanner<unknown>): GroupMember & { planned: number } {
  const m = {
    planned: 0,
    planner: async (ctx: Parameters<GridPlanner<unknown>>[0]) => {
      m.planned += 1;
      return planner(ctx);
    },
    options: {},
    scope: undefined,
    run: <T>(f: () => Promise<T>) => f(),
    outcomeUnknown: false,
    resolve: () => undefined,
    reject: () => undefined,
  };
  return m;
}

const pin: GridPlanner<unknown> = async () => ({
  kind: 'write',
  mutation: { upserts: [{ postId: 7n, sortKey: 70n, movedVersion: 1n }] },
  result: 'pinned',
});
const timedOut = mapUnavailable(
  new errors.OperationTimedOutError('The host did not reply before timeout 2500 ms'),
);

describe('a round of a group commit', () => {
  it('fails at once when the store does not answer a planner, before planning the rest', async () => {
    const first = member(pin);
    const stuck = member(async () => {
      throw timedOut;
    });
    const after = member(pin);
    const round = planRound(store, 1n, snapshot, [first, stuck, after], 1, bounds, rows);
    await expect(round).rejects.toBe(timedOut);
    expect(timedOut).toBeInstanceOf(DomainError);
    expect(after.planned).toBe(0); // nobody else waited on the store after it
  });

  it('answers a planner refusal alone and keeps the others, also one the deadline refused', async () => {
    const refusals = [
      new DomainError('post_not_on_grid', 'not on this grid'),
      unavailable(new NotSent('refused after the deadline')),
    ];
    for (const refusal of refusals) {
      const first = member(pin);
      const refused = member(async () => {
        throw refusal;
      });
      const after = member(pin);
      const plan = await planRound(store, 1n, snapshot, [first, refused, after], 1, bounds, rows);
      expect(plan.writes).toBe(2);
      expect(after.planned).toBe(1);
      expect(plan.batched.map((p) => p.kind)).toEqual(['write', 'refused', 'write']);
    }
  });
});
