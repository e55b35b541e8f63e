/**
 * What a page read is asked and answers (read-page.ts).
 */
import type { MinVersion } from '../../domain/grid-version.js';
import type { GridEntry } from '../../domain/merge.js';
import type { Post } from '../../domain/post.js';
import type { StatementScope } from '../../store/statement-scope.js';

export interface PageQuery {
  readonly profileId: bigint;
  readonly limit: number;
  readonly cursor?: string | undefined;
  /**
   * Read-your-writes: the caller saw this state; never answer with an older one. Without a
   * generation only version numbers are compared; with one, generation first.
   */
  readonly minVersion?: MinVersion | undefined;
  /**
   * The request's statement scope (http/deadline.ts): every statement of the read names it, so
   * once the deadline answered and sealed it, the read's next statement is refused. Absent =
   * nobody's request (audit, tools).
   */
  readonly scope?: StatementScope | undefined;
}

export interface GridPage {
  readonly items: readonly Post[];
  /** Pins (first page) then the main-order entries, before hydration. */
  readonly entries: readonly GridEntry[];
  readonly nextCursor: string | null;
  readonly version: bigint;
  readonly generation: bigint;
  /** Posts on the grid (exact, from the grid head); undefined for a grid not yet counted. */
  readonly postCount: bigint | undefined;
  /** The cursor was issued at another version: the order changed since the previous page. */
  readonly gridChanged: boolean;
  /** Read with overrides switched off (the kill switch): not the grid's arrangement. */
  readonly chronological: boolean;
}
