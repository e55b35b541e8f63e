/**
 * One tile of the grid: a square with the post's image, or a generated placeholder (caption and
 * creation date on a colour derived from the post ID) when there is no `media_url` or the image
 * does not load. Pinned tiles carry a badge. `data-post-id` lets tests and tools read the order.
 */
import type { GridItem } from '@regrid/client';

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A stable hue per post, so placeholders are told apart at a glance. */
function hueOf(id: string): number {
  let h = 0;
  for (const ch of id.slice(-8)) h = (h * 31 + ch.charCodeAt(0)) % 360;
  return h;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls: string, text?: string) {
  const e = document.createElement(tag);
  e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

const SVG = 'http://www.w3.org/2000/svg';

/** A drawn pin (an emoji may have no font to render with). */
function pinBadge(): HTMLElement {
  const badge = el('span', 'pin-badge');
  badge.title = 'Pinned';
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS(SVG, 'path');
  path.setAttribute('d', 'M15 2l7 7-2 1-4 4 1 5-2 2-4-4-6 6-1-1 6-6-4-4 2-2 5 1 4-4z');
  path.setAttribute('fill', 'currentColor');
  svg.append(path);
  badge.append(svg);
  return badge;
}

export function createTile(post: GridItem): HTMLLIElement {
  const li = el('li', 'tile');
  li.dataset.postId = post.id;
  li.tabIndex = 0;
  const created = new Date(post.created_at);
  const caption = post.caption ?? '(no caption)';
  li.dataset.label = `${caption}, ${dateFormat.format(created)}`;

  const ph = el('div', 'placeholder');
  ph.style.background = `hsl(${hueOf(post.id)} 45% 82%)`;
  ph.append(el('span', 'caption', caption), el('time', 'date', dateFormat.format(created)));
  li.append(ph);
  if (post.media_url) {
    const img = el('img', 'media');
    img.alt = '';
    img.draggable = false;
    img.loading = 'lazy';
    img.onerror = () => img.remove(); // offline or gone: the placeholder shows through
    img.src = post.media_url;
    li.append(img);
  }
  li.append(pinBadge());

  const tools = el('div', 'tools');
  const pin = el('button', 'pin', 'Pin');
  pin.type = 'button';
  pin.dataset.act = 'pin';
  const archive = el('button', 'archive', 'Archive');
  archive.type = 'button';
  archive.dataset.act = 'archive';
  tools.append(pin, archive);
  li.append(tools);
  return li;
}

/** Pinned state on an existing tile (the rest of a tile never changes). */
export function markPinned(li: HTMLElement, pinned: boolean): void {
  li.classList.toggle('pinned', pinned);
  li.setAttribute('aria-label', `${li.dataset.label}${pinned ? ', pinned' : ''}`);
  const btn = li.querySelector<HTMLButtonElement>('button.pin')!;
  btn.textContent = pinned ? 'Unpin' : 'Pin';
  btn.setAttribute('aria-pressed', String(pinned));
}
