/**
 * In-process, per-profile write queue: writes to one profile from this process wait in line
 * instead of racing for the compare-and-set. On a hot profile every racer re-reads and re-plans
 * after each lost CAS (and gives up with a 503 after CAS_MAX_ATTEMPTS); in line, the only CAS
 * losses left are against other processes.
 *
 * When its turn comes, the profile's runner takes the writes waiting (up to `maxTake`, oldest
 * first) and hands them to `round` together: the group commit (group-commit.ts) plans them on
 * one snapshot and commits them in one conditional batch. Writes the round hands back (cut from
 * its group) go back to the front, ahead of anything queued meanwhile. With `maxTake` 1 writes
 * simply take turns.
 *
 * A fresh line waits for the next turn of the event loop (shared by every line, `nextTurn`) before
 * its first round, as a busy line does between rounds: the batches of every round started in that
 * turn leave in one socket write, and writes pushed meanwhile join the first round.
 *
 * A write that waited longer than `maxWaitMs` without being taken answers 503 `contention` with
 * Retry-After without touching Cassandra; the writes behind it keep their order. Once taken, a
 * write is the round's to settle. Planners must not write the same profile from inside (they
 * would wait on themselves); none does.
 */
import { AsyncResource } from 'node:async_hooks';
import { DomainError } from '../../domain/errors.js';

export interface Queued {
  /** Answers the write without running it. */
  reject(err: unknown): void;
}

interface Waiting<M> {
  readonly item: M;
  timer: NodeJS.Timeout | undefined;
}

export class GroupQueue<M extends Queued> {
  /** Per profile with writes running or waiting: those waiting, oldest first. */
  private readonly lines = new Map<bigint, Waiting<M>[]>();

  /** The runners start from the queue's own context, never from the request that woke them. */
  private readonly home = new AsyncResource('regrid.group-queue');

  constructor(
    private readonly settings: {
      readonly maxWaitMs: number;
      readonly retryAfterS: number;
      readonly maxTake: number;
    },
    /** Settles every write it is given, except those it returns; never rejects. */
    private readonly round: (profileId: bigint, items: M[]) => Promise<M[]>,
    /** Called when a profile's line is empty again (its runner stopped). */
    private readonly idle: (profileId: bigint) => void = () => undefined,
  ) {}

  /** How many profiles have writes running or waiting (for tests and metrics). */
  get busyProfiles(): number {
    return this.lines.size;
  }

  /** Writes waiting for a profile's next round (not those of the round running). */
  waiting(profileId: bigint): number {
    return this.lines.get(profileId)?.length ?? 0;
  }

  push(profileId: bigint, item: M): void {
    const line = this.lines.get(profileId);
    const entry: Waiting<M> = { item, timer: undefined };
    if (line) {
      entry.timer = setTimeout(() => this.late(line, entry), this.settings.maxWaitMs);
      line.push(entry);
      return;
    }
    const fresh = [entry];
    this.lines.set(profileId, fresh);
    void this.home.runInAsyncScope(() => this.drain(profileId, fresh));
  }

  private late(line: Waiting<M>[], entry: Waiting<M>): void {
    const at = line.indexOf(entry);
    if (at < 0) return; // taken meanwhile
    line.splice(at, 1);
    entry.item.reject(
      new DomainError('contention', 'too many writes queued for this grid; retry shortly', {
        retry_after_s: this.settings.retryAfterS,
        queued_ms: this.settings.maxWaitMs,
      }),
    );
  }

  private async drain(profileId: bigint, line: Waiting<M>[]): Promise<void> {
    try {
      // A fresh line waits for the shared turn too: requests read from several sockets in one
      // poll of the event loop then send their batches together, not one socket write each.
      await nextTurn();
      while (line.length > 0) {
        const taken = line.splice(0, this.settings.maxTake);
        for (const e of taken) clearTimeout(e.timer);
        const items = taken.map((e) => e.item);
        let back: M[];
        try {
          back = await this.round(profileId, items);
        } catch (err) {
          for (const i of items) i.reject(err); // a broken round: never leave a write hanging
          back = [];
        }
        line.unshift(...back.map((item) => ({ item, timer: undefined })));
        // One turn of the event loop before the next take: the writers this round answered
        // queue their next writes right away, and they belong in the same next group.
        await nextTurn();
      }
    } finally {
      this.lines.delete(profileId);
      this.idle(profileId);
    }
  }
}

let turn: Promise<void> | undefined;

/**
 * The next turn of the event loop, shared: every line waiting for it resumes in the same
 * callback, so the rounds they start send their conditional batches in the same tick and the
 * driver writes them to the socket together (one syscall, and one wake-up of the node, for
 * all of them) instead of one per line.
 */
function nextTurn(): Promise<void> {
  return (turn ??= new Promise<void>((resolve) =>
    setImmediate(() => {
      turn = undefined;
      resolve();
    }),
  ));
}
