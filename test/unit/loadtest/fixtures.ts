/**
 * Fixtures shared by the loadtest unit tests: acknowledged moves written with plain numbers, so
 * a table of moves stays readable (`null` = moved to the top / no version).
 */
import type { AckedMove } from '../../../tools/loadtest/history.js';

/** An acknowledged move of `postId` after `after`, committed at `version`, acked `seq`-th. */
export const mv = (
  postId: number,
  after: number | null,
  version: number | null,
  seq: number,
): AckedMove => ({
  postId: BigInt(postId),
  after: after === null ? null : BigInt(after),
  version: version === null ? null : BigInt(version),
  seq,
});
