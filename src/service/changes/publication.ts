/**
 * The change stream's part in each write round of the grid writer (service/write-line/write-line.ts
 * `publishWith`): a mark before the round's first batch, sent when the round opens (so its round
 * trip overlaps the snapshot read and the planning, and it reads the grid's watermark, which the
 * writer checks its head against) and awaited before the batch; kept if a batch
 * applied (refreshed by the publish script, or left for the sweeper if this process dies first),
 * taken back if none did. The publish is not awaited by the write: the commands of one
 * connection run in order, so the next round's publish follows this one, and the script's gap
 * rule covers one that failed.
 *
 * A grid keeps its mark across this process's rounds: the publish refreshes its score instead of
 * removing it, and the next round reuses it without a round trip (an awaited mark before every
 * batch was most of the stream's cost per move). Only while the mark is younger than half the
 * sweep age: the sweeper takes marks older than the whole age, so one this process still relies
 * on is never swept. When no round of the grid used it for that long (and none is running), the
 * process takes it back itself, so idle grids leave no marks for the sweeper to read.
 */
import type { CommitEvent, Publication, PublicationRound } from '../write-line/types.js';
import type { ChangePublisher, Mark } from './publisher.js';

interface Kept {
  readonly member: string;
  /** When its score was last written (at most: the refresh is sent after this). */
  readonly at: number;
}

/** A Publication that can also wait for the publishes it has started (a CLI before it exits). */
export interface SettledPublication extends Publication {
  settled(): Promise<void>;
}

export function publicationOf(
  publisher: ChangePublisher,
  /** How long a kept mark may be reused (half CHANGES_SWEEP_AGE_MS). */
  keepForMs: number,
  log: (msg: string, err?: unknown) => void = () => {},
): SettledPublication {
  /** Publishes started and not yet answered. */
  const inFlight = new Set<Promise<void>>();
  const kept = new Map<bigint, Kept>();
  /** Rounds of a grid running now (a kept mark is not taken back under them). */
  const running = new Map<bigint, number>();
  /** Batches of a grid applied and not yet published (their mark must stay if we die). */
  const unpublished = new Map<bigint, number>();
  const count = (m: Map<bigint, number>, p: bigint, d: number) => {
    const n = (m.get(p) ?? 0) + d;
    if (n > 0) m.set(p, n);
    else m.delete(p);
  };
  const idle = new Map<bigint, NodeJS.Timeout>();
  const usable = (k: Kept | undefined): k is Kept =>
    k !== undefined && Date.now() - k.at < keepForMs;
  const fresh = (profileId: bigint): Promise<Mark> => {
    const at = Date.now();
    return publisher.mark(profileId).then((mark) => {
      if (mark.member) kept.set(profileId, { member: mark.member, at });
      return mark;
    });
  };
  /** Takes the kept mark back once no round used it for `keepForMs`. */
  const releaseLater = (profileId: bigint, member: string) => {
    clearTimeout(idle.get(profileId));
    const t = setTimeout(() => {
      idle.delete(profileId);
      if (running.has(profileId) || unpublished.has(profileId)) return;
      if (kept.get(profileId)?.member !== member) return;
      kept.delete(profileId);
      void publisher.unmark(profileId, member);
    }, keepForMs);
    t.unref();
    idle.set(profileId, t);
  };
  return {
    open(profileId: bigint): PublicationRound {
      count(running, profileId, 1);
      const held = kept.get(profileId);
      // A kept mark costs no round trip and reads no watermark: this process published the
      // grid's last versions itself, and its own newest commit is the writer's evidence then.
      let marking: Promise<Mark> = usable(held)
        ? Promise.resolve({ member: held.member })
        : fresh(profileId);
      let applied = false;
      return {
        async beforeBatch() {
          // A kept mark that aged while this round planned: a new one first.
          if (usable(held) && !usable(kept.get(profileId))) marking = fresh(profileId);
          return (await marking).published;
        },
        applied() {
          applied = true;
          count(unpublished, profileId, 1);
        },
        publish(event: CommitEvent) {
          const publishing = (async () => {
            const { member } = await marking;
            const at = Date.now();
            const ok = await publisher.publishCommitted(event, member, member !== undefined);
            // A failed publish leaves its mark unkept in Redis (swept once aged) and is owed.
            count(unpublished, profileId, -1);
            if (ok && member) {
              kept.set(profileId, { member, at });
              releaseLater(profileId, member);
            } else kept.delete(profileId);
          })().catch((err: unknown) => {
            count(unpublished, profileId, -1);
            kept.delete(profileId);
            log(`change stream: ${profileId}@${event.version} left to the sweeper`, err);
          });
          inFlight.add(publishing);
          void publishing.finally(() => inFlight.delete(publishing));
        },
        done() {
          count(running, profileId, -1);
          if (applied) return;
          void marking.then(({ member: m }) => {
            if (!m) return;
            // Still the grid's kept mark: its idle timer takes it back (or a later round uses it).
            if (kept.get(profileId)?.member === m) return releaseLater(profileId, m);
            return publisher.unmark(profileId, m);
          });
        },
      };
    },
    async settled() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
