/**
 * Bounded workloads for the fault tests and the record they leave: every move attempt (status,
 * start and end), every acknowledged move (for the load tester's model, src/loadtest/history.ts
 * and checker.ts), and every plain read (for the staleness check).
 *
 * Movers behave like a careful client: each move carries an Idempotency-Key, and a move whose
 * outcome is unknown (5xx, 409 in flight) is retried with the same key until it is acknowledged
 * or the mover's deadline passes. A retry of a move that did commit is answered from the grid's
 * request ring with the version it committed at, so at the end every move is either acknowledged
 * with its version or still unresolved (which fails the order check, as it should).
 */
import type { Served } from '../../../src/cache/grid-cache.js';
import { checkGrid, type GridCheck } from '../../../tools/loadtest/checker.js';
import type { AckedMove } from '../../../tools/loadtest/history.js';
import { createRng, type Rng } from '../../../tools/loadtest/rng.js';
import { sleep } from '../../../tools/infra/process-utils.js';
import { call, readVersion, type Instance } from './instance.js';

export interface Grid {
  readonly profileId: bigint;
  /** Display order before the first move (top first). */
  readonly initial: readonly bigint[];
}

export interface MoveAttempt {
  readonly profileId: bigint;
  readonly key: string;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly status: number;
  readonly code: string | undefined;
  /** Answered from the request ring: an earlier attempt with this key had committed. */
  readonly replayed: boolean;
}

export interface ReadSample {
  readonly reader: string;
  readonly profileId: bigint;
  readonly startedAt: number;
  readonly endedAt: number;
  /** Undefined when the read failed. */
  readonly version: bigint | undefined;
  /** Which path of the grid cache answered (undefined: the read failed before it). */
  /** How the cache answered (grid-cache.ts `Served`); a string, so older paths still compare. */
  readonly served: string | undefined;
}

/** Everything a run did, in the order it happened. */
export class RunLog {
  readonly attempts: MoveAttempt[] = [];
  readonly reads: ReadSample[] = [];
  private readonly acks = new Map<bigint, Ack[]>();
  private readonly unresolved = new Map<bigint, number>();
  /** Keys of the unresolved moves, for messages. */
  readonly unresolvedKeys: string[] = [];
  private seq = 0;

  ack(profileId: bigint, move: Omit<AckedMove, 'seq'>, at: number, seen: AckSeen = {}): void {
    const list = this.acks.get(profileId) ?? [];
    list.push({ ...move, ...seen, seq: this.seq++, at });
    this.acks.set(profileId, list);
  }

  unresolvedMove(profileId: bigint, key: string): void {
    this.unresolved.set(profileId, (this.unresolved.get(profileId) ?? 0) + 1);
    this.unresolvedKeys.push(key);
  }

  /** What happened to the unresolved moves, attempt by attempt, relative to `t0`. */
  describeUnresolved(t0: number): string {
    return this.unresolvedKeys
      .map((key) => {
        const tries = this.attempts.filter((a) => a.key === key);
        return `${key}: ${tries.map((a) => `${a.status} ${a.code ?? ''} @${a.startedAt - t0}–${a.endedAt - t0}`).join(', ')}`;
      })
      .join('; ');
  }

  acked(profileId?: bigint): Ack[] {
    if (profileId !== undefined) return this.acks.get(profileId) ?? [];
    return [...this.acks.values()].flat();
  }

  unresolvedCount(): number {
    return [...this.unresolved.values()].reduce((a, b) => a + b, 0);
  }

  /** The highest version acknowledged for the profile at or before `t` (0 if none). */
  lastAckedBefore(profileId: bigint, t: number): bigint {
    let max = 0n;
    for (const a of this.acks.get(profileId) ?? []) {
      if (a.at <= t && a.version !== null && a.version > max) max = a.version;
    }
    return max;
  }

  /** Plain reads that answered a version older than one acknowledged before they started. */
  staleReads(reads = this.reads): Array<ReadSample & { expected: bigint }> {
    return reads.flatMap((r) => {
      const expected = this.lastAckedBefore(r.profileId, r.startedAt);
      return r.version !== undefined && r.version < expected ? [{ ...r, expected }] : [];
    });
  }

  /** The load tester's checker: every post once, in the order the acknowledged moves imply. */
  check(grid: Grid, observed: readonly bigint[]): GridCheck {
    return checkGrid(
      {
        profileId: grid.profileId,
        initial: grid.initial,
        acks: this.acked(grid.profileId),
        uncertain: this.unresolved.get(grid.profileId) ?? 0,
      },
      observed,
    );
  }
}

/** What the response of an acknowledged move named besides its version. */
export interface AckSeen {
  /** Its Idempotency-Key. */
  readonly key?: string;
  /** Its `ETag: "<generation>.<version>"`: the name of the state it committed or left. */
  readonly etag?: string;
}

export type Ack = AckedMove & AckSeen & { readonly at: number };

export interface MoverOptions {
  readonly name: string;
  readonly seed: number;
  /** Grids to move on; asked before every move, so a test can narrow it as the run goes on. */
  readonly grids: () => readonly Grid[];
  /** No new move starts after this time (asked before every move). */
  readonly until: () => number;
  /** Retries of a move with an unknown outcome stop at this time (the move stays unresolved). */
  readonly resolveBy: () => number;
}

const RETRY_PAUSE_MS = 150;

/** Moves one post after a random anchor (a fifth of them to the top) until `until`. */
export async function runMover(inst: Instance, log: RunLog, o: MoverOptions): Promise<void> {
  const rng = createRng(o.seed);
  for (let n = 0; Date.now() < o.until(); n++) {
    const grids = o.grids();
    if (grids.length === 0) return;
    const grid = grids[rng.int(grids.length)]!;
    const { postId, after } = pickMove(rng, grid.initial);
    await settleMove(inst, log, grid.profileId, postId, after, `${o.name}-${n}`, o.resolveBy);
  }
}

function pickMove(rng: Rng, posts: readonly bigint[]) {
  const postId = posts[rng.int(posts.length)]!;
  if (rng.next() < 0.2) return { postId, after: null };
  const others = posts.filter((p) => p !== postId);
  return { postId, after: others[rng.int(others.length)]! };
}

async function settleMove(
  inst: Instance,
  log: RunLog,
  profileId: bigint,
  postId: bigint,
  after: bigint | null,
  key: string,
  resolveBy: () => number,
): Promise<void> {
  const body = { post_id: postId.toString(), after: after === null ? null : after.toString() };
  for (;;) {
    const startedAt = Date.now();
    const r = await call(inst, 'POST', '/v1/me/grid/moves', profileId, {
      body,
      headers: { 'idempotency-key': key },
    });
    const endedAt = Date.now();
    const code: string | undefined = r.json?.code;
    log.attempts.push({
      profileId,
      key,
      startedAt,
      endedAt,
      status: r.status,
      code,
      replayed: r.replayed,
    });
    if (r.status === 200) {
      const seen = { key, ...(r.etag ? { etag: r.etag } : {}) };
      log.ack(profileId, { postId, after, version: BigInt(r.json.grid_version) }, endedAt, seen);
      return;
    }
    const unknown = r.status >= 500 || code === 'idempotency_in_flight';
    if (!unknown) throw new Error(`move answered ${r.status}: ${JSON.stringify(r.json)}`);
    // The ring no longer tells whether it committed: nobody can know any more.
    if (r.json?.outcome === 'unknown' || Date.now() >= resolveBy()) {
      log.unresolvedMove(profileId, key);
      return;
    }
    await sleep(RETRY_PAUSE_MS);
  }
}

/**
 * Records which path of the instance's grid cache answered each profile's latest first-page
 * read. The real cache runs unchanged underneath; readers are one per profile and instance, so
 * the latest answer for a profile is the one of the read just made.
 */
export function watchServed(inst: Instance): Map<bigint, Served> {
  const grid = inst.service.caches!.grid;
  const latest = new Map<bigint, Served>();
  const read = grid.read.bind(grid);
  grid.read = async (profileId, limit, min, fill) => {
    const r = await read(profileId, limit, min, fill);
    latest.set(profileId, r.served);
    return r;
  };
  return latest;
}

/** Plain first-page reads of one profile, one at a time, `gapMs` apart, until `until`. */
export async function runReader(
  inst: Instance,
  served: Map<bigint, Served>,
  log: RunLog,
  reader: string,
  profileId: bigint,
  until: number,
  gapMs = 15,
): Promise<void> {
  while (Date.now() < until) {
    const startedAt = Date.now();
    served.delete(profileId);
    const version = await readVersion(inst, profileId).catch(() => undefined);
    log.reads.push({
      reader,
      profileId,
      startedAt,
      endedAt: Date.now(),
      version,
      served: served.get(profileId),
    });
    await sleep(gapMs);
  }
}
