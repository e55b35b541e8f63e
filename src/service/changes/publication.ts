/**
 * The change stream's part in each write round of the grid writer (service/write/grid-writer.ts
 * `publishWith`): a mark before the round's first batch, sent when the round opens (so its round
 * trip overlaps the snapshot read and the planning) and awaited before the batch; kept if a batch
 * applied (published and cleared by the publish script, or left for the sweeper if this process
 * dies first), taken back if none did. The publish is not awaited by the write: the commands of
 * one connection run in order, so the next round's publish follows this one, and the script's
 * gap rule covers one that failed.
 *
 * A grid with more writes waiting in this process's line keeps its mark across rounds: the
 * publish refreshes its score instead of removing it, and the next round reuses it without a
 * round trip (a hot grid's rounds carry their state and read nothing, so an awaited mark was most
 * of their added latency). Only while the mark is younger than half the sweep age: the sweeper
 * takes marks older than the whole age, so one this process still relies on is never swept.
 */
import type { CommitEvent, Publication, PublicationRound } from '../write/write-types.js';
import type { ChangePublisher } from './publisher.js';

interface Kept {
  readonly member: string;
  /** When its score was last written (at most: the refresh is sent after this). */
  readonly at: number;
}

export function publicationOf(
  publisher: ChangePublisher,
  /** Writes of the grid waiting in this process's line (GridWriter.queued). */
  waiting: (profileId: bigint) => number,
  /** How long a kept mark may be reused (half CHANGES_SWEEP_AGE_MS). */
  keepForMs: number,
  log: (msg: string, err?: unknown) => void = () => {},
): Publication {
  const kept = new Map<bigint, Kept>();
  const usable = (k: Kept | undefined): k is Kept =>
    k !== undefined && Date.now() - k.at < keepForMs;
  const fresh = (profileId: bigint) => {
    const at = Date.now();
    return publisher.mark(profileId).then((member) => {
      if (member) kept.set(profileId, { member, at });
      return member;
    });
  };
  return {
    open(profileId: bigint): PublicationRound {
      const held = kept.get(profileId);
      let marking = usable(held)
        ? Promise.resolve<string | undefined>(held.member)
        : fresh(profileId);
      let applied = false;
      return {
        async beforeBatch() {
          // A kept mark that aged while this round planned: a new one first.
          if (usable(held) && !usable(kept.get(profileId))) marking = fresh(profileId);
          await marking;
        },
        applied() {
          applied = true;
        },
        publish(event: CommitEvent) {
          const keep = waiting(profileId) > 0;
          if (!keep) kept.delete(profileId); // the script removes it
          void (async () => {
            const member = await marking;
            const at = Date.now();
            const ok = await publisher.publishCommitted(
              event,
              member,
              keep && member !== undefined,
            );
            if (keep && ok && member) kept.set(profileId, { member, at });
            else if (keep) kept.delete(profileId);
          })().catch((err: unknown) => {
            kept.delete(profileId);
            log(`change stream: ${profileId}@${event.version} left to the sweeper`, err);
          });
        },
        done() {
          if (applied) return;
          void marking.then((m) => {
            if (!m || (waiting(profileId) > 0 && kept.get(profileId)?.member === m)) return;
            if (kept.get(profileId)?.member === m) kept.delete(profileId);
            return publisher.unmark(profileId, m);
          });
        },
      };
    },
  };
}
