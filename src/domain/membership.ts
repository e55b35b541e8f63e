/**
 * Membership effects: what a grid write changes outside the override partition.
 *
 * Which posts a grid holds lives in other tables (`grid_posts`, archive records),
 * and Cassandra cannot put them in the same compare-and-set as the version. So a write that
 * changes membership does not touch them before it commits. It *decides* inside the CAS, and the
 * CAS batch records the decision as an `Effects` value in a static cell of the override
 * partition. The side tables are then brought in line ("rolled forward") with a write timestamp
 * taken from that record:
 *
 * - by the writer, right after its compare-and-set;
 * - by the next writer or reader that finds the record not yet marked applied (a crash, a
 *   timeout, or simply a reader that came first), before it looks at the side tables.
 *
 * Timestamps grow with the version (`nextEffectsTs`), so re-applying an old record late can
 * never undo a newer one: the newer cells win by timestamp. Applying a record twice is harmless.
 * Every fact a write depends on is therefore read from a snapshot whose side tables reflect
 * exactly its version, and a lost compare-and-set leaves nothing behind to clean up.
 *
 * Pure: no I/O. The store (store/membership-store.ts) turns ops into CQL.
 */

export type MembershipOp =
  /** The post joins the time-ordered grid. */
  | { readonly op: 'grid_put'; readonly postId: bigint; readonly authorId: bigint }
  /** The post leaves the time-ordered grid. */
  | { readonly op: 'grid_drop'; readonly postId: bigint }
  /** An archive record (with its listing row, `seq` = an ID issued when archived). */
  | {
      readonly op: 'archive_put';
      readonly postId: bigint;
      readonly authorId: bigint;
      readonly sortKey: bigint | undefined;
      readonly seq: bigint;
    }
  | { readonly op: 'archive_drop'; readonly postId: bigint; readonly seq: bigint | undefined }
  /**
   * A pending collaborator invitation. Only in records written before invitations left the
   * grid (cql/020_invitations.cql); no write records them now, roll-forward still applies them.
   */
  | { readonly op: 'invite_put'; readonly postId: bigint; readonly authorId: bigint }
  | { readonly op: 'invite_drop'; readonly postId: bigint };

export interface Effects {
  /** The grid version whose compare-and-set recorded these ops. */
  readonly version: bigint;
  /** Write timestamp (µs since the epoch) of every cell the ops write. */
  readonly ts: bigint;
  readonly ops: readonly MembershipOp[];
}

/**
 * The timestamp for the next record: wall-clock µs, but always above the previous record's, so
 * a later version's cells win over an earlier one's even if the clock went back.
 */
export function nextEffectsTs(previous: Effects | undefined, nowMicros: bigint): bigint {
  const floor = previous ? previous.ts + 1n : 0n;
  return nowMicros > floor ? nowMicros : floor;
}

/** True when `effects` were recorded but not yet marked applied. */
export const needsRollForward = (
  effects: Effects | undefined,
  appliedVersion: bigint,
): effects is Effects =>
  effects !== undefined && effects.ops.length > 0 && effects.version > appliedVersion;

type Wire = Record<string, string | undefined>;

/** Compact JSON; bigints as decimal strings. */
export function encodeEffects(e: Effects): string {
  return JSON.stringify({
    v: e.version.toString(),
    ts: e.ts.toString(),
    ops: e.ops.map((o) => {
      const w: Wire = { op: o.op, p: o.postId.toString() };
      if ('authorId' in o) w.a = o.authorId.toString();
      if ('sortKey' in o && o.sortKey !== undefined) w.k = o.sortKey.toString();
      if ('seq' in o && o.seq !== undefined) w.s = o.seq.toString();
      return w;
    }),
  });
}

export function decodeEffects(text: string | null | undefined): Effects | undefined {
  if (!text) return undefined;
  const raw = JSON.parse(text) as { v: string; ts: string; ops: Wire[] };
  const big = (s: string | undefined) => (s === undefined ? undefined : BigInt(s));
  const need = (s: string | undefined) => {
    if (s === undefined) throw new Error(`malformed effects record: ${text}`);
    return BigInt(s);
  };
  const ops = raw.ops.map((w): MembershipOp => {
    const postId = need(w.p);
    switch (w.op) {
      case 'grid_put':
      case 'invite_put':
        return { op: w.op, postId, authorId: need(w.a) };
      case 'grid_drop':
      case 'invite_drop':
        return { op: w.op, postId };
      case 'archive_put':
        return {
          op: 'archive_put',
          postId,
          authorId: need(w.a),
          sortKey: big(w.k),
          seq: need(w.s),
        };
      case 'archive_drop':
        return { op: 'archive_drop', postId, seq: big(w.s) };
      default:
        throw new Error(`unknown membership op ${String(w.op)}`);
    }
  });
  return { version: BigInt(raw.v), ts: BigInt(raw.ts), ops };
}

/** How the ops change the grid's post count (one `grid_put` = +1, one `grid_drop` = −1). */
export function countDelta(ops: readonly MembershipOp[]): bigint {
  let d = 0n;
  for (const o of ops) {
    if (o.op === 'grid_put') d += 1n;
    else if (o.op === 'grid_drop') d -= 1n;
  }
  return d;
}
