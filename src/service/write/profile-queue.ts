/**
 * In-process, per-profile write queue: writes to one profile from this process take turns
 * instead of racing for the compare-and-set. On a hot profile every racer re-reads and re-plans
 * after each lost CAS (and gives up with a 503 after CAS_MAX_ATTEMPTS); in a queue each write
 * reads once and commits once, and the only CAS losses left are against other processes.
 *
 * A write that waited longer than `maxWaitMs` for its turn answers 503 `contention` with
 * Retry-After without touching Cassandra; the writes queued behind it keep their order. Writes
 * must not call the writer for the same profile from inside a planner (they would wait on
 * themselves); none does.
 */
import { DomainError } from '../../domain/errors.js';

export class ProfileQueue {
  /** The promise the next write of each profile waits for (absent = nobody queued). */
  private readonly tails = new Map<bigint, Promise<void>>();

  constructor(
    private readonly maxWaitMs: number,
    private readonly retryAfterS: number,
  ) {}

  /** How many profiles have writes running or waiting (for tests and metrics). */
  get busyProfiles(): number {
    return this.tails.size;
  }

  async run<T>(profileId: bigint, write: () => Promise<T>): Promise<T> {
    const before = this.tails.get(profileId);
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    const tail = (before ?? Promise.resolve()).then(() => mine);
    this.tails.set(profileId, tail);
    try {
      if (before) await this.turn(before);
      return await write();
    } finally {
      done();
      if (this.tails.get(profileId) === tail) this.tails.delete(profileId);
    }
  }

  private async turn(before: Promise<void>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), this.maxWaitMs);
    });
    try {
      if ((await Promise.race([before, late])) === 'late') {
        throw new DomainError('contention', 'too many writes queued for this grid; retry shortly', {
          retry_after_s: this.retryAfterS,
          queued_ms: this.maxWaitMs,
        });
      }
    } finally {
      clearTimeout(timer);
    }
  }
}
