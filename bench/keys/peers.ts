/**
 * The schemes teams use instead of gapped integers, as the benchmark simulates them: dense ranks,
 * doubles (seeded by ranks or by millisecond timestamps), fractional-indexing and LexoRank, the
 * latter two through their npm packages. See schemes.ts for the shared simulation.
 */
import { generateKeyBetween, generateNKeysBetween } from 'fractional-indexing';
import { LexoRank } from 'lexorank';
import { ONE_ROW, type Entry, type KeyRules, type MoveOutcome } from './types.js';

/**
 * Dense ranks 1..n (a 4-byte int). A post's rank is its position, so the order holds by
 * construction; the cost is the rows whose rank changes: those between the old and the new
 * position, or, for a new post, every row above it.
 */
export const dense: KeyRules<number> = {
  seed: (seeds) => seeds.map((_, i) => i + 1),
  place(entries, postId, from, to) {
    const n = entries.length;
    entries.splice(to, 0, { postId, key: to + 1 }); // other ranks are implied by position
    const rows = from < 0 ? n - to + 1 : Math.abs(from - to) + 1;
    return { rows, relabel: rows > 1, failed: false };
  },
  less: () => true,
  bytes: 4,
};

/**
 * Midpoints in doubles. Seeded by ranks (1, 2, 3, …; a move to an end takes the end ± 1), or by
 * creation times in milliseconds, bounded like regrid's keys by 0 and the current time. When the
 * midpoint equals an end, precision has run out: the move fails and the grid is renumbered.
 */
export function floats(msSeeds: boolean): KeyRules<number> {
  const renumber = (entries: Entry<number>[], nowMs: number) => {
    const n = entries.length;
    entries.forEach((e, i) => (e.key = msSeeds ? (nowMs * (i + 1)) / (n + 1) : i + 1));
  };
  return {
    seed: (seeds) => seeds.map((s, i) => (msSeeds ? s.ms : i + 1)),
    place(entries, postId, _from, to, nowMs): MoveOutcome {
      const lo = entries[to - 1]?.key ?? (msSeeds ? 0 : undefined);
      const hi = entries[to]?.key ?? (msSeeds ? nowMs : undefined);
      let key: number;
      if (lo !== undefined && hi !== undefined) key = lo + (hi - lo) / 2;
      else if (lo !== undefined) key = lo + 1;
      else if (hi !== undefined) key = hi - 1;
      else key = 1;
      entries.splice(to, 0, { postId, key });
      if ((lo === undefined || lo < key) && (hi === undefined || key < hi)) return ONE_ROW;
      renumber(entries, nowMs);
      return { rows: entries.length, relabel: true, failed: true };
    },
    less: (a, b) => a < b,
    bytes: 8,
  };
}

/** fractional-indexing 4.0.0 (base-62 digits, compared as plain strings). Keys never run out. */
export const fractional: KeyRules<string> = {
  seed: (seeds) => generateNKeysBetween(null, null, seeds.length),
  place(entries, postId, _from, to) {
    const key = generateKeyBetween(entries[to - 1]?.key ?? null, entries[to]?.key ?? null);
    entries.splice(to, 0, { postId, key });
    return ONE_ROW;
  },
  less: (a, b) => a < b,
  bytes: (k) => k.length,
};

/**
 * lexorank 1.0.5 (Jira-style "0|hzzzzz:…" ranks, base 36). Jira rebalances at once when a rank
 * reaches 160 characters and refuses ranking operations that would reach 254; the simulation
 * does the same, rebalancing the whole grid to fresh ranks 8 apart.
 */
const REBALANCE_AT = 160;
const REFUSE_AT = 254;

export const lexorank: KeyRules<LexoRank> = {
  seed: (seeds) => fresh(seeds.length),
  place(entries, postId, _from, to): MoveOutcome {
    const lo = entries[to - 1]?.key;
    const hi = entries[to]?.key;
    let key: LexoRank;
    if (lo !== undefined && hi !== undefined) key = lo.between(hi);
    else if (lo !== undefined) key = lo.genNext();
    else if (hi !== undefined) key = hi.genPrev();
    else key = LexoRank.middle();
    const length = key.toString().length;
    if (length >= REFUSE_AT) return { rows: 0, relabel: false, failed: true };
    entries.splice(to, 0, { postId, key });
    if (length < REBALANCE_AT) return ONE_ROW;
    const ranks = fresh(entries.length);
    entries.forEach((e, i) => (e.key = ranks[i] as LexoRank));
    return { rows: entries.length, relabel: true, failed: false };
  },
  // LexoRank#compareTo uses localeCompare; plain string order is what a database index uses.
  less: (a, b) => a.toString() < b.toString(),
  bytes: (k) => k.toString().length,
};

function fresh(n: number): LexoRank[] {
  const ranks: LexoRank[] = [];
  let r = LexoRank.min();
  for (let i = 0; i < n; i++) ranks.push((r = r.genNext()));
  return ranks;
}
