/**
 * The change stream's part in each write round of the grid writer (service/write/grid-writer.ts
 * `publishWith`): one mark before the round's first batch, kept if a batch applied (published
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
      let marking: Promise<string | undefined> | undefined;
      let applied = false;
      return {
        async beforeBatch() {
          marking ??= publisher.mark(profileId);
          await marking;
        },
        applied() {
          applied = true;
        },
        publish(event: CommitEvent) {
          void (async () => {
            const member = marking ? await marking : undefined;
            await publisher.publishCommitted(event, member);
          })().catch((err: unknown) =>
            log(`change stream: ${profileId}@${event.version} left to the sweeper`, err),
          );
        },
        done() {
          if (applied || !marking) return;
          void marking.then((m) => (m ? publisher.unmark(profileId, m) : undefined));
        },
      };
    },
  };
}
