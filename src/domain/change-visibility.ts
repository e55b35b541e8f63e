/**
 * The public form of a change record (issue 31; docs/http-api.md "Changes"): what the catch-up
 * route answers anyone but the grid's owner (and the platform's own services). It tells nothing a
 * public grid read would not: the grid's version moved, posts joined it, posts moved on it, or
 * something left it.
 *
 * - A post that joins the grid (`created`, `registered`, `imported`, `unarchived`,
 *   `collaborator_accepted`) reads `added`, with its ID: from that version on the grid shows it.
 * - Anything that takes a post off the grid (`deleted`, `archived`, `taken_down`,
 *   `collaborator_left`, `collaborator_removed`) reads `removed` and names no post. Naming it
 *   would tell an archive from a deletion: a post deleted after it was archived (or a pending
 *   invitation withdrawn) is a removal of a post the grid no longer showed.
 * - Order changes (`moved`, `pinned`, `unpinned`, `reset`, `batch_reordered`, `undone`) keep their
 *   kind and posts: they only ever name posts the grid shows.
 * - Everything else (`collaborator_declined`, `changed`) reads `changed`, naming no post.
 *
 * Pure: no I/O.
 */
import type { ChangeKind, ChangeRecord } from './change-log.js';

/** The public form's own kinds (the stream has none of these). */
export const PUBLIC_ONLY_KINDS = ['added', 'removed'] as const;

/** Kinds the public form uses. */
export const PUBLIC_CHANGE_KINDS = [
  ...PUBLIC_ONLY_KINDS,
  'moved',
  'pinned',
  'unpinned',
  'reset',
  'batch_reordered',
  'undone',
  'changed',
] as const;

export type PublicChangeKind = (typeof PUBLIC_CHANGE_KINDS)[number];

/** Each kind's public kind, and whether its posts may be named (exhaustive over ChangeKind). */
const PUBLIC: Record<ChangeKind, readonly [PublicChangeKind, boolean]> = {
  created: ['added', true],
  registered: ['added', true],
  imported: ['added', true],
  unarchived: ['added', true],
  collaborator_accepted: ['added', true],
  deleted: ['removed', false],
  archived: ['removed', false],
  taken_down: ['removed', false],
  collaborator_left: ['removed', false],
  collaborator_removed: ['removed', false],
  moved: ['moved', true],
  pinned: ['pinned', true],
  unpinned: ['unpinned', true],
  reset: ['reset', true],
  batch_reordered: ['batch_reordered', true],
  undone: ['undone', true],
  collaborator_declined: ['changed', false],
  changed: ['changed', false],
};

export interface PublicChange {
  readonly version: bigint;
  readonly generation: bigint;
  readonly at: number;
  readonly kind: PublicChangeKind;
  readonly postIds: readonly bigint[];
}

export function publicChange(r: ChangeRecord): PublicChange {
  const [kind, named] = PUBLIC[r.kind];
  return {
    version: r.version,
    generation: r.generation,
    at: r.at,
    kind,
    postIds: named ? r.postIds : [],
  };
}
