/**
 * Group-commit test helpers over the feature harness: a GridService of its own whose conditional
 * batches are counted and whose commit events are kept (one per batch), a way to hold a
 * profile's write line so that writes queue up behind it (they then go in one group), and the
 * move model (replay of acknowledged moves in version order, tools/loadtest/history.ts).
 */
import { errors, types } from 'cassandra-driver';
import type { Config } from '../../../src/config/config.js';
import { DomainError } from '../../../src/domain/errors.js';
import { IdGenerator } from '../../../src/domain/ids.js';
import { GridService } from '../../../src/service/grid-service.js';
import type { CommitEvent, WriterHooks } from '../../../src/service/write-line/write-line.js';
import { cqlOf, type Cql } from '../../../src/store/cassandra.js';
import { linearize, replay, type AckedMove } from '../../../tools/loadtest/history.js';
import type { Features } from './harness.js';

export interface GroupService {
  readonly service: GridService;
  /**
   * The next conditional batch is sent and applied, then answered with a Paxos write timeout
   * (what a coordinator does when the commit round is slow): its outcome is unknown to the writer.
   */
  timeOutNextBatch(): void;
  /**
   * After the next timed-out batch, the following `n` reads of the override partition fail as
   * an unavailable replica set would (what the ring showed: the re-read after a Paxos timeout
   * times out too). 0 stops it.
   */
  failReadsAfterTimeout(n: number): void;
  readonly hooks: WriterHooks;
  /** One per conditional batch that applied: writes in it = version − before.head.version. */
  readonly events: CommitEvent[];
  /** Conditional batches sent (applied or not). */
  batches(): number;
}

/**
 * A service of its own ("another process": its own writer, queue and ID worker; 7800-7899 are
 * free for this file's workers) over the same keyspace.
 */
export function groupService(f: Features, worker: number, env: Partial<Config> = {}) {
  const raw = cqlOf(f.client);
  let batches = 0;
  let timeOut = false;
  let failAfter = 0;
  let failing = 0;
  const counting: Cql = {
    execute: (q, p, o) => {
      if (failing > 0 && /FROM grid_overrides/.test(q)) {
        failing -= 1;
        return Promise.reject(
          new DomainError('unavailable', 'Cassandra cannot serve this request right now', {
            retry_after_s: 1,
          }),
        );
      }
      return raw.execute(q, p, o);
    },
    batch: async (qs, o) => {
      if (!qs.some((s) => /\sIF\s/i.test(s.query))) return raw.batch(qs, o);
      batches += 1;
      const rs = await raw.batch(qs, o);
      if (!timeOut) return rs;
      timeOut = false;
      failing = failAfter;
      failAfter = 0;
      const err = new errors.ResponseError(types.responseErrorCodes.writeTimeout, 'CAS timed out');
      throw Object.assign(err, { writeType: 'CAS' });
    },
  };
  const events: CommitEvent[] = [];
  const hooks: WriterHooks = { onCommitted: [(e) => void events.push(e)] };
  const service = new GridService({
    cql: counting,
    config: { ...f.config, ...env },
    ids: new IdGenerator(worker),
    cursorSecret: 'feature-tests-cursor-secret',
    hooks,
  });
  return {
    service,
    hooks,
    events,
    batches: () => batches,
    timeOutNextBatch: () => void (timeOut = true),
    failReadsAfterTimeout: (n: number) => {
      failAfter = n;
      if (n === 0) failing = 0; // and stop failing now
    },
  } satisfies GroupService;
}

/** Writes committed by each batch of `events`. */
export const groupSizes = (events: readonly CommitEvent[]): number[] =>
  events.map((e) => Number(e.version - e.before.head.version));

/**
 * Occupies the profile's write line with a write whose planner waits for `release(n)` (resolves
 * once that planner runs): writes started meanwhile queue behind it, and once `n` of them wait
 * the next round takes them all.
 */
export async function occupy(svc: GridService, profileId: bigint) {
  let open!: () => void;
  let running!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const started = new Promise<void>((resolve) => (running = resolve));
  const held = svc.writer.writeGrid(profileId, async () => {
    running();
    await gate;
    return { kind: 'skip', result: null };
  });
  await started;
  return {
    async release(n: number): Promise<void> {
      await until(() => svc.writer.queued(profileId), n);
      open();
      await held;
    },
  };
}

/** Waits until `count()` reaches `n` (writes that must first claim a key, say). Bounded. */
export async function until(count: () => number, n: number): Promise<void> {
  for (let i = 0; i < 2000 && count() < n; i++) await new Promise((r) => setTimeout(r, 5));
  if (count() < n) throw new Error(`only ${count()} of ${n} arrived`);
}

/** The order the acknowledged moves imply: replayed in version order. */
export const modelOrder = (initial: readonly bigint[], acks: readonly AckedMove[]): bigint[] =>
  replay(initial, linearize(acks));

export type { AckedMove };
