/**
 * "Edit, then Done": moves are recorded locally (and shown at once) while editing; Done sends one
 * batch order, PATCH /v1/me/grid/order with If-Match = the ETag the editing started from. On 412
 * (the grid changed meanwhile: another device, a new post) it reads the order again and replays
 * the recorded moves on it (design §5.3), asking the user only about moves whose anchor vanished,
 * then sends the result with the new ETag. Only the range that changed is sent.
 */
import { isRegridError, type RegridClient } from '@regrid/client';
import type { Board } from './board.js';
import { versionOfEtag } from './board.js';
import {
  anchorOf,
  moveIndex,
  patchFor,
  replayMoves,
  type AnchorChoice,
  type Move,
} from './order.js';
import type { Ui } from './ui.js';

const MAX_ROUNDS = 4;

export class Batch {
  private base: Awaited<ReturnType<RegridClient['order']>> | undefined;
  private moves: Move[] = [];

  constructor(
    private readonly api: RegridClient,
    private readonly board: Board,
    private readonly ui: Ui,
  ) {}

  get active(): boolean {
    return this.base !== undefined;
  }

  get count(): number {
    return this.moves.length;
  }

  async start(): Promise<void> {
    this.base = await this.api.order();
    this.moves = [];
    this.ui.say('Editing: drag tiles, then press Done to save them all at once.');
  }

  /** A move while editing: shown at once, saved with the others on Done. */
  record(postId: string, from: number, to: number): void {
    this.board.posts = moveIndex(this.board.posts, from, to);
    this.board.render();
    this.moves.push({ postId, after: anchorOf(this.board.ids(), this.board.pinCount, postId) });
    this.ui.say(`${this.moves.length} move(s) not saved yet: press Done to save.`);
  }

  cancel(): Promise<void> {
    this.base = undefined;
    this.moves = [];
    this.ui.say('Edits discarded.');
    return this.board.reload();
  }

  /** Saves the recorded moves as one batch order; resolves when saved (or nothing to save). */
  async done(): Promise<void> {
    let order = this.base!;
    let replayed = false;
    let issues = 0;
    for (let round = 1; ; round++) {
      const replay = await replayMoves(order.post_ids, order.pinned, this.moves, (m) =>
        this.askAbout(m),
      );
      const next = replay.order;
      issues = replay.issues.length;
      const body = patchFor(order.post_ids, next);
      try {
        if (body) {
          const r = await this.api.patchOrder(body, order.etag);
          this.board.setVersion(r.grid_version);
        }
        break;
      } catch (err) {
        if (!isRegridError(err, 'precondition_failed') || round === MAX_ROUNDS) throw err;
        // Someone else wrote since our ETag: replay our moves on what the grid is now.
        order = await this.api.order();
        replayed = true;
        this.ui.say(
          `The grid changed meanwhile (now version ${versionOfEtag(order.etag)}): replaying.`,
        );
      }
    }
    const saved = this.moves.length;
    this.base = undefined;
    this.moves = [];
    await this.board.reload();
    const note = replayed ? ' after replaying them on the newer grid' : '';
    const skipped = issues ? ` (${issues} of them no longer applied as recorded)` : '';
    this.ui.say(
      `Saved ${saved} move(s) as one batch${note}${skipped} (version ${this.board.version}).`,
    );
  }

  private askAbout(move: Move): Promise<AnchorChoice> {
    const caption = (id: string | null) =>
      this.board.posts.find((p) => p.id === id)?.caption ?? `post ${id}`;
    return this.ui.choose<AnchorChoice>(
      `"${caption(move.postId)}" was to go after "${caption(move.after)}", which is no longer ` +
        'on the grid. Put it at the top, or leave it where it is now?',
      [
        { label: 'Put it at the top', value: 'top' },
        { label: 'Leave it', value: 'skip' },
      ],
    );
  }
}
