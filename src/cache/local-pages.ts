/**
 * The store behind the process-local tier of rendered first pages (rendered-pages.ts decides what
 * goes in and when an entry may answer): per (profile, limit) one rendering and the time until
 * which it is trusted, bounded by bytes.
 *
 * Eviction is second chance, an approximation of least recently used: a hit only marks its entry
 * (the hot path reorders nothing), and eviction, oldest first, moves a marked entry to the back
 * once instead of dropping it. Looked up by profile, then limit: no key string per request.
 */
/** What is stored: a rendering (only its body's length matters here). */
interface Page {
  readonly body: string;
}

interface Entry<P extends Page> {
  readonly profileId: bigint;
  readonly limit: number;
  readonly page: P;
  readonly until: number;
  readonly bytes: number;
  used: boolean;
}

export interface LocalPages<P extends Page> {
  /** The entry, if one is held (expired or not: the caller compares `until`); marks it used. */
  get(profileId: bigint, limit: number): { readonly page: P; readonly until: number } | undefined;
  /** Replaces the profile's entry for `limit`; false when the page alone is over the bound. */
  put(profileId: bigint, limit: number, page: P, until: number): boolean;
  /** Drops every entry of the profile. */
  drop(profileId: bigint): void;
}

export function createLocalPages<P extends Page>(maxBytes: number): LocalPages<P> {
  const byProfile = new Map<bigint, Map<number, Entry<P>>>();
  const order = new Set<Entry<P>>(); // insertion order: the first is the oldest
  let bytes = 0;

  function remove(entry: Entry<P>): void {
    order.delete(entry);
    bytes -= entry.bytes;
    const limits = byProfile.get(entry.profileId);
    limits?.delete(entry.limit);
    if (limits?.size === 0) byProfile.delete(entry.profileId);
  }

  return {
    get(profileId, limit) {
      const entry = byProfile.get(profileId)?.get(limit);
      if (entry) entry.used = true;
      return entry;
    },
    put(profileId, limit, page, until) {
      const held = byProfile.get(profileId)?.get(limit);
      if (held) remove(held);
      const size = page.body.length * 2 + 200; // UTF-16 in memory, plus the entry itself
      if (size > maxBytes) return false;
      const entry: Entry<P> = { profileId, limit, page, until, bytes: size, used: false };
      let limits = byProfile.get(profileId);
      if (!limits) byProfile.set(profileId, (limits = new Map()));
      limits.set(limit, entry);
      order.add(entry);
      bytes += size;
      // Terminates: a marked entry is moved (and unmarked) at most once per pass.
      for (const oldest of order) {
        if (bytes <= maxBytes) break;
        if (oldest.used && oldest !== entry) {
          oldest.used = false;
          order.delete(oldest);
          order.add(oldest);
        } else if (oldest !== entry) remove(oldest);
      }
      return true;
    },
    drop(profileId) {
      for (const entry of [...(byProfile.get(profileId)?.values() ?? [])]) remove(entry);
    },
  };
}
