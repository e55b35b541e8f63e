/**
 * The owner's writes outside the edit mode, each saved at once: a move (optimistic, one
 * anchor-based POST with its own Idempotency-Key, snapped back if refused), pin / unpin, archive,
 * unarchive, reset to chronological and undo of the last move. Writes run one at a time in the
 * order they were made, so every move's anchor is computed on the order the previous one left.
 */
import { isRegridError, type RegridClient } from '@regrid/client';
import type { Board } from './board.js';
import { anchorOf, moveIndex } from './order.js';
import type { Ui } from './ui.js';

const MAX_PINS = 3;

export class Live {
  private queue: Promise<unknown> = Promise.resolve();
  private inFlight = 0;
  /** Writes started so far: a version seen by a poll that overlapped one is not news. */
  writes = 0;
  private readonly undoable: string[] = [];

  constructor(
    private readonly api: RegridClient,
    private readonly board: Board,
    private readonly ui: Ui,
    private readonly onUndoable: (n: number) => void,
  ) {}

  get busy(): boolean {
    return this.inFlight > 0;
  }

  /** Runs `fn` after the writes before it; an error is shown, and the grid reloaded if asked. */
  private run(label: string, fn: () => Promise<string | void>, onError?: () => void) {
    this.inFlight++;
    this.writes++;
    this.queue = this.queue.then(async () => {
      try {
        const done = await fn();
        this.ui.clearError();
        this.ui.say(done ?? label);
      } catch (err) {
        onError?.();
        this.ui.fail(err);
        if (isRegridError(err) && (err.code === 'anchor_not_on_grid' || err.status === 404)) {
          await this.board.reload().catch(() => undefined);
        }
      } finally {
        this.inFlight--;
      }
    });
    return this.queue;
  }

  move(postId: string, from: number, to: number) {
    const before = this.board.posts;
    this.board.posts = moveIndex(before, from, to);
    this.board.render(); // lands at once; snapped back below if the server says no
    const after = anchorOf(this.board.ids(), this.board.pinCount, postId);
    return this.run(
      'Moved.',
      async () => {
        const r = await this.api.move(postId, after);
        this.board.setVersion(r.grid_version);
        this.undoable.push(r.move_id);
        this.onUndoable(this.undoable.length);
        return `Moved (version ${r.grid_version}).`;
      },
      () => {
        this.board.posts = moveIndex(this.board.posts, this.board.ids().indexOf(postId), from);
        this.board.render();
      },
    );
  }

  /** Pins or unpins; the new pin list is made when its turn comes, from the pins then. */
  togglePin(postId: string) {
    return this.run('', async () => {
      const had = this.board.pins.includes(postId);
      const pins = had ? this.board.pins.filter((p) => p !== postId) : [...this.board.pins, postId];
      if (pins.length > MAX_PINS) {
        throw new Error(`At most ${MAX_PINS} posts can be pinned: unpin one first.`);
      }
      return this.saveAndReload(had ? 'Unpinned' : 'Pinned', () => this.api.setPins(pins));
    });
  }

  archive(postId: string) {
    return this.rewrite('Archived.', () => this.api.archivePost(postId));
  }

  unarchive(postId: string) {
    return this.rewrite('Back on the grid.', () => this.api.unarchivePost(postId, 'previous'));
  }

  /** Moves before a reset or a batch are not "the last move" any more. */
  forgetUndo(): void {
    this.undoable.length = 0;
    this.onUndoable(0);
  }

  reset() {
    this.forgetUndo();
    return this.rewrite('Back to chronological order.', () => this.api.reset());
  }

  undo() {
    const moveId = this.undoable.pop();
    this.onUndoable(this.undoable.length);
    if (!moveId) return Promise.resolve();
    return this.rewrite('Move undone.', () => this.api.undo(moveId));
  }

  /** A write whose effect on the order the server decides: then read the grid again. */
  private rewrite(label: string, write: () => Promise<unknown>) {
    return this.run(label, () => this.saveAndReload(label, write));
  }

  private async saveAndReload(label: string, write: () => Promise<unknown>): Promise<string> {
    const r = (await write()) as { grid_version?: string };
    if (r.grid_version) this.board.setVersion(r.grid_version);
    await this.board.reload();
    return `${label.replace(/\.$/, '')} (version ${this.board.version}).`;
  }
}
