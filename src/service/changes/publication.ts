/**
 * The change stream's part in each write round of the grid writer (service/write/grid-writer.ts
 * `publishWith`): one mark per round, sent when the round opens (so its round trip overlaps the
 * snapshot read and the planning) and awaited before the first batch, kept if a batch applied (published
 * and cleared by the publish script, or left for the sweeper if this process dies first), taken
 * back if none did. The publish is not awaited by the write: the commands of one connection run
 * in order, so the next round's publish follows this one, and the script's gap rule covers one
 * that failed.
 */
import type { CommitEvent, Publication, PublicationRound } from '../write/write-types.js';
import type { ChangePublisher } from './publisher.js';

export function publicationOf(
  publisher: ChangePublisher,
  log: (msg: string, err?: unknown) => void = () => {},
): Publication {
  return {
    open(profileId: bigint): PublicationRound {
      const marking = publisher.mark(profileId);
      let applied = false;
      return {
        async beforeBatch() {
          await marking;
        },
        applied() {
          applied = true;
        },
        publish(event: CommitEvent) {
          void (async () => {
            await publisher.publishCommitted(event, await marking);
          })().catch((err: unknown) =>
            log(`change stream: ${profileId}@${event.version} left to the sweeper`, err),
          );
        },
        done() {
          if (applied) return;
          void marking.then((m) => (m ? publisher.unmark(profileId, m) : undefined));
        },
      };
    },
  };
}
