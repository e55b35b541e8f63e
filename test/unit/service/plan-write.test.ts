import { errors } from 'cassandra-driver';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../src/domain/errors.js';
import { mapUnavailable, NotSent, unavailable } from '../../../src/store/cql-errors.js';
import { EMPTY_HEAD } from '../../../src/store/grid-rows.js';
import { planWrite } from '../../../src/service/write-line/commit.js';
import type {
  GridPlanner,
  GridRowsRead,
  QueuedWrite,
} from '../../../src/service/write-line/types.js';

const snapshot = { head: EMPTY_HEAD, overrides: [] };
const settings = {};
const store = { countGridRows: async () => 0n };
/** The planners here read no rows. */
const rows = {} as GridRowsRead;

function member(planner: GridPlanner<unknown>): QueuedWrite & { planned: number } {
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

describe('planning one write', () => {
  it('fails at once when the store does not answer the planner', async () => {
    const stuck = member(async () => {
      throw timedOut;
    });
    const plan = planWrite(store, 1n, snapshot, stuck, 1, settings, rows);
    await expect(plan).rejects.toBe(timedOut);
    expect(timedOut).toBeInstanceOf(DomainError);
  });

  it('answers a planner refusal as refused, also one the deadline refused', async () => {
    const refusals = [
      new DomainError('post_not_on_grid', 'not on this grid'),
      unavailable(new NotSent('refused after the deadline')),
    ];
    for (const refusal of refusals) {
      const refused = member(async () => {
        throw refusal;
      });
      const plan = await planWrite(store, 1n, snapshot, refused, 1, settings, rows);
      expect(plan).toEqual({ kind: 'refused', error: refusal });
      const written = await planWrite(store, 1n, snapshot, member(pin), 1, settings, rows);
      expect(written.kind).toBe('write');
    }
  });
});
