/**
 * Builds reordered copies (store/display-copy-store.ts) for profiles with many overrides, off the
 * request path. Why a copy: a page of such a profile otherwise reads every override row (cold) or
 * decodes the whole cached list (warm) and merges it with the time-ordered rows; a copy is read by
 * seeking to the cursor, so a page costs what it costs with no overrides.
 *
 * When: after each commit whose own snapshot holds COPY_MIN_OVERRIDES overrides or more
 * (service/wiring.ts), and when a read first learns such a profile (CopyHints). Bursts coalesce: a build starts `debounceMs` after the last
 * commit, and at the latest `maxDelayMs` after the first one of a burst. Builds run one at a time
 * per process, newest state only. Until a state's copy is complete, reads merge as before.
 *
 * A build reads the state the way a cache fill does (version with the overrides in one query,
 * then the time-ordered rows, then the version again) and writes the copy only if the version has
 * not moved: the copy then holds exactly that state. The copy this process built before for the
 * profile is dropped after the new one is complete (one partition tombstone, never read again).
 */
import { sameGridState, type GridVersion } from '../../domain/grid-version.js';
import type { DisplayCopyStore } from '../../store/display-copy-store.js';
import type { CassandraGridReader } from '../../store/grid-reader.js';

export interface CopyBuilderSettings {
  readonly minOverrides: number;
  readonly debounceMs: number;
  readonly maxDelayMs: number;
  readonly log?: (message: string, err?: unknown) => void;
}

export interface CopyBuilder {
  schedule(profileId: bigint): void;
  /** Resolves when nothing is scheduled or building (tests, shutdown). */
  settled(): Promise<void>;
  /** Cancels scheduled builds (shutdown). */
  stop(): void;
  readonly stats: { built: number; abandoned: number; failed: number };
}

const BUILT_MAX = 100_000;

export function createCopyBuilder(
  reader: CassandraGridReader,
  copies: DisplayCopyStore,
  settings: CopyBuilderSettings,
): CopyBuilder {
  const timers = new Map<bigint, { timer: NodeJS.Timeout; firstAt: number }>();
  const queued = new Set<bigint>();
  const built = new Map<bigint, GridVersion>();
  const stats = { built: 0, abandoned: 0, failed: 0 };
  let chain: Promise<void> = Promise.resolve();
  let stopped = false;

  async function build(profileId: bigint): Promise<void> {
    const { head, rows } = await reader.readOverrides(profileId);
    if (rows.length < settings.minOverrides) return;
    const entries = await reader.entries(profileId, rows, {
      limit: Number.MAX_SAFE_INTEGER,
      exclude: head.pins,
    });
    if (!sameGridState(await reader.readHead(profileId), head)) {
      stats.abandoned += 1; // a newer commit scheduled the build of its own state
      return;
    }
    await copies.write(profileId, head, entries);
    stats.built += 1;
    const previous = built.get(profileId);
    if (built.size >= BUILT_MAX) built.clear();
    built.set(profileId, head);
    if (previous && !sameGridState(previous, head)) await copies.drop(profileId, previous);
  }

  function run(profileId: bigint): void {
    timers.delete(profileId);
    if (queued.has(profileId) || stopped) return;
    queued.add(profileId);
    chain = chain.then(async () => {
      queued.delete(profileId);
      try {
        await build(profileId);
      } catch (err) {
        stats.failed += 1;
        settings.log?.(`reordered copy of profile ${profileId} not built`, err);
      }
    });
  }

  return {
    stats,
    schedule(profileId) {
      if (stopped || settings.minOverrides <= 0) return;
      const now = Date.now();
      const pending = timers.get(profileId);
      const firstAt = pending?.firstAt ?? now;
      if (pending) clearTimeout(pending.timer);
      const wait = Math.max(0, Math.min(settings.debounceMs, firstAt + settings.maxDelayMs - now));
      // A build is nobody's request: its statements name no statement scope (no deadline).
      const timer = setTimeout(() => run(profileId), wait);
      timer.unref();
      timers.set(profileId, { timer, firstAt });
    },
    async settled() {
      while (timers.size > 0 || queued.size > 0) {
        await new Promise((r) => setTimeout(r, 10));
        await chain;
      }
      await chain;
    },
    stop() {
      stopped = true;
      for (const { timer } of timers.values()) clearTimeout(timer);
      timers.clear();
    },
  };
}
