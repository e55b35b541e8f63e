/**
 * The keyboard alternative to dragging: focus a tile, Space or Enter picks it up, the arrow keys
 * move it (left/right by one, up/down by a row of three), Space or Enter drops it there, Escape
 * puts it back. A live region says what happens, for screen readers. P pins or unpins the focused
 * tile, as its Pin button does.
 */
import type { Board } from './board.js';
import type { DropHandler } from './drag.js';

const STEP: Record<string, number> = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -3, ArrowDown: 3 };

export function enableKeyboard(
  board: Board,
  onDrop: DropHandler,
  enabled: () => boolean,
  announce: (text: string) => void,
  onPinKey: (postId: string) => void,
): void {
  let held: { id: string; from: number } | undefined;

  const place = (id: string, index: number) => {
    const order = board.domOrder().filter((x) => x !== id);
    board.list.insertBefore(board.tileOf(id)!, board.tileOf(order[index] ?? '') ?? null);
    board.tileOf(id)!.focus();
  };

  board.list.addEventListener('keydown', (e) => {
    const tile = e.target as HTMLElement;
    if (!tile.classList.contains('tile')) return; // keys on the tile's buttons are theirs
    const id = tile.dataset.postId ?? '';
    if (e.key === ' ' || e.key === 'Enter') {
      e.preventDefault();
      if (held) {
        const { from } = held;
        held = undefined;
        tile.classList.remove('held');
        const to = board.domOrder().indexOf(id);
        announce(`Dropped at position ${to + 1}.`);
        if (to === from) board.render();
        else onDrop(id, from, to);
      } else if (enabled()) {
        if (board.pins.includes(id)) return announce('Pinned posts stay on top: unpin it first.');
        held = { id, from: board.ids().indexOf(id) };
        tile.classList.add('held');
        announce(`Picked up. Arrow keys move it, Space drops it, Escape cancels.`);
      }
    } else if (e.key in STEP && held?.id === id) {
      e.preventDefault();
      const order = board.domOrder();
      const max = order.length - 1;
      const to = Math.min(max, Math.max(board.pinCount, order.indexOf(id) + STEP[e.key]!));
      place(id, to);
      announce(`Position ${to + 1} of ${order.length}.`);
    } else if (e.key === 'Escape' && held) {
      held = undefined;
      tile.classList.remove('held');
      board.render();
      announce('Move cancelled.');
    } else if ((e.key === 'p' || e.key === 'P') && !held) {
      onPinKey(id);
    } else if (e.key in STEP && !held) {
      // Roving focus: arrows go from tile to tile when nothing is held.
      const order = board.domOrder();
      const next = board.tileOf(order[order.indexOf(id) + STEP[e.key]!] ?? '');
      if (next) {
        e.preventDefault();
        next.focus();
      }
    }
  });
}
