/**
 * Drag and drop with pointer events, for mouse, pen and touch. A mouse drag starts after the
 * pointer moved a few pixels; a touch drag after a long press (as on Instagram), so a swipe still
 * scrolls the page. While dragging, a ghost follows the pointer and the tile itself moves through
 * the grid, so the user sees the order they will get. Pinned tiles stay put, and nothing lands
 * among them. On release, `onDrop` gets the display indices before and after.
 */
import type { Board } from './board.js';

const MOUSE_SLOP_PX = 5;
const TOUCH_SLOP_PX = 10;
const LONG_PRESS_MS = 350;

export type DropHandler = (postId: string, from: number, to: number) => void;

interface Gesture {
  readonly id: string;
  readonly tile: HTMLElement;
  readonly pointerId: number;
  readonly x0: number;
  readonly y0: number;
  readonly touch: boolean;
  started: boolean;
  timer?: number;
  ghost?: HTMLElement;
}

export function enableDrag(board: Board, onDrop: DropHandler, enabled: () => boolean): void {
  const list = board.list;
  let g: Gesture | undefined;

  const begin = (x: number, y: number) => {
    if (!g) return;
    g.started = true;
    const r = g.tile.getBoundingClientRect();
    const ghost = g.tile.cloneNode(true) as HTMLElement;
    ghost.classList.add('ghost');
    ghost.removeAttribute('data-post-id'); // the ghost is not part of the order
    ghost.style.width = `${r.width}px`;
    ghost.style.height = `${r.height}px`;
    document.body.append(ghost);
    g.ghost = ghost;
    g.tile.classList.add('dragging');
    follow(x, y);
  };

  const follow = (x: number, y: number) => {
    if (!g?.ghost) return;
    const r = g.tile.getBoundingClientRect();
    g.ghost.style.transform = `translate(${x - r.width / 2}px, ${y - r.height / 2}px)`;
    const over = document.elementFromPoint(x, y)?.closest<HTMLElement>('.tile');
    if (!over || over === g.tile || !list.contains(over)) return;
    const order = board.domOrder();
    const to = order.indexOf(over.dataset.postId ?? '');
    if (to < board.pinCount) return; // pins stay first
    const from = order.indexOf(g.id);
    list.insertBefore(g.tile, from < to ? over.nextElementSibling : over);
  };

  const end = (commit: boolean) => {
    if (!g) return;
    const { id, started, tile, ghost, timer } = g;
    g = undefined;
    window.clearTimeout(timer);
    ghost?.remove();
    tile.classList.remove('dragging');
    if (!started) return;
    const from = board.ids().indexOf(id);
    const to = board.domOrder().indexOf(id);
    if (!commit || from === to || to < 0) board.render();
    else onDrop(id, from, to);
  };

  list.addEventListener('pointerdown', (e) => {
    const tile = (e.target as HTMLElement).closest<HTMLElement>('.tile');
    if (!tile || !enabled() || g || e.button !== 0) return;
    if ((e.target as HTMLElement).closest('button')) return;
    const id = tile.dataset.postId ?? '';
    if (board.pins.includes(id)) return;
    const touch = e.pointerType !== 'mouse';
    g = { id, tile, pointerId: e.pointerId, x0: e.clientX, y0: e.clientY, touch, started: false };
    if (touch) g.timer = window.setTimeout(() => begin(e.clientX, e.clientY), LONG_PRESS_MS);
    list.setPointerCapture(e.pointerId);
  });

  list.addEventListener('pointermove', (e) => {
    if (!g || e.pointerId !== g.pointerId) return;
    if (g.started) return follow(e.clientX, e.clientY);
    const dist = Math.hypot(e.clientX - g.x0, e.clientY - g.y0);
    if (g.touch && dist > TOUCH_SLOP_PX)
      end(false); // a swipe: let the page scroll
    else if (!g.touch && dist > MOUSE_SLOP_PX) begin(e.clientX, e.clientY);
  });

  list.addEventListener('pointerup', (e) => e.pointerId === g?.pointerId && end(true));
  list.addEventListener('pointercancel', (e) => e.pointerId === g?.pointerId && end(false));
  // Once a touch drag has begun, the finger must move the tile, not scroll the page.
  list.addEventListener('touchmove', (e) => g?.started && e.preventDefault(), { passive: false });
  list.addEventListener('contextmenu', (e) => g?.touch && e.preventDefault());
  window.addEventListener('keydown', (e) => e.key === 'Escape' && end(false));
}
