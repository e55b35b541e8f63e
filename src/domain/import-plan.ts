/**
 * The pure half of `regrid import` (service/import/): how a source of existing posts is cut into
 * work, what a source row must hold, and what a checkpoint remembers.
 *
 * - A CQL source is scanned by slices of the Murmur3 token ring, each independent and retried
 *   whole: a checkpoint names the slices that finished, so a killed import resumes with the
 *   others and redoes at most the slices that were running (every chunk is idempotent).
 * - A row is checked by the API's own rule (`checkRow`: the service route's schemas in
 *   post-schema.ts, then the registered-post rule of ids.ts `registeredCreatedAt`); a row that
 *   fails is skipped and reported with its place in the source (`line 7`, or the CQL row's key)
 *   and the reason, never guessed at.
 * - Valid rows are grouped into chunks of one profile's posts (consecutive rows of one profile,
 *   up to a bound): one chunk is one compare-and-set on that profile's grid. Within a chunk, rows
 *   of one post ID collapse before planning (`collapseDuplicates`): one post is one grid entry.
 */
import { DomainError } from './errors.js';
import { registeredCreatedAt } from './ids.js';
import { sameBody, type Post } from './post.js';
import { describeIssues, ImportRow } from './post-schema.js';

export const MIN_TOKEN = -(2n ** 63n);
export const MAX_TOKEN = 2n ** 63n - 1n;

/** One slice of the token ring: `token(pk) >= lo AND token(pk) <= hi`. */
export interface TokenSlice {
  readonly index: number;
  readonly lo: bigint;
  readonly hi: bigint;
}

/** The whole Murmur3 ring in `n` slices of (almost) equal width, in token order, no gaps. */
export function tokenSlices(n: number): TokenSlice[] {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`slices must be >= 1: ${n}`);
  const width = (MAX_TOKEN - MIN_TOKEN + 1n) / BigInt(n);
  return Array.from({ length: n }, (_, i) => ({
    index: i,
    lo: MIN_TOKEN + width * BigInt(i),
    hi: i === n - 1 ? MAX_TOKEN : MIN_TOKEN + width * BigInt(i + 1) - 1n,
  }));
}

/**
 * A source row as read (CQL or NDJSON), before validation: where it is (`at`: `line 7`, or
 * `profile_id=… post_id=…`) and its fields in the service route's wire form (IDs as decimal
 * strings, `created_at` as RFC 3339), or why it could not even be read (`unreadable`).
 */
export interface SourceRow {
  readonly at: string;
  readonly fields?: unknown;
  readonly unreadable?: string;
}

/** A row that was skipped, and why: every one of them goes into the import's report. */
export interface ImportIssue {
  readonly at: string;
  /**
   * invalid: breaks the API's rule; duplicate: the same post as an earlier row of its chunk
   * (counted once); conflict: another body under the same post ID (in the chunk, or in regrid);
   * failed: a slice that failed (`at` names it), to be redone by a rerun.
   */
  readonly kind: 'invalid' | 'duplicate' | 'conflict' | 'failed';
  readonly reason: string;
}

/** A row that passed the rule: the post it stands for. */
export interface ValidRow {
  readonly at: string;
  readonly post: Post;
}

const MAX_REASON = 300;
const clip = (s: string) => (s.length > MAX_REASON ? `${s.slice(0, MAX_REASON - 1)}…` : s);

/**
 * A JSON number ID is taken as its decimal string while it is exact (a safe integer); any other
 * number stays a number, which the schema refuses (a larger one was rounded when it was parsed).
 */
function exactIds(fields: unknown): unknown {
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return fields;
  const out: Record<string, unknown> = { ...(fields as Record<string, unknown>) };
  for (const k of ['profile_id', 'post_id']) {
    const v = out[k];
    if (typeof v === 'number' && Number.isSafeInteger(v)) out[k] = String(v);
  }
  return out;
}

/** The post a row stands for, by the API's rule, or why it cannot be imported. */
export function checkRow(row: SourceRow, nowMs: number = Date.now()): ValidRow | ImportIssue {
  const invalid = (reason: string): ImportIssue => ({
    at: row.at,
    kind: 'invalid',
    reason: clip(reason),
  });
  if (row.unreadable !== undefined) return invalid(row.unreadable);
  const parsed = ImportRow.safeParse(exactIds(row.fields));
  if (!parsed.success) return invalid(describeIssues(parsed.error));
  const d = parsed.data;
  try {
    const given = d.created_at === undefined ? undefined : new Date(d.created_at);
    const post: Post = {
      postId: d.post_id,
      authorId: d.profile_id,
      caption: d.caption,
      mediaUrl: d.media_url,
      createdAt: registeredCreatedAt(d.post_id, given, nowMs),
      collaborators: [],
    };
    return { at: row.at, post };
  } catch (err) {
    if (err instanceof DomainError) return invalid(err.message);
    throw err;
  }
}

/**
 * Why a post (already made, e.g. handed to the service directly) breaks the API's rule, or
 * undefined: the same check as a source row's, on the post's wire form.
 */
export function checkPost(post: Post, nowMs: number = Date.now()): string | undefined {
  const fields = {
    profile_id: String(post.authorId),
    post_id: String(post.postId),
    created_at: post.createdAt.toISOString(),
    caption: post.caption,
    media_url: post.mediaUrl,
  };
  const out = checkRow({ at: `post ${post.postId}`, fields }, nowMs);
  return 'reason' in out ? out.reason : undefined;
}

/**
 * One row per post ID, before a chunk is planned: rows with the same body collapse into the
 * first (the others are reported as `duplicate`); rows of one ID with different bodies are all
 * reported as `conflict` and none of them is kept (which one the platform meant is not ours to
 * guess). Kept rows stay in source order.
 */
export function collapseDuplicates(rows: readonly ValidRow[]): {
  rows: ValidRow[];
  issues: ImportIssue[];
} {
  const byId = new Map<bigint, ValidRow[]>();
  for (const r of rows) {
    const group = byId.get(r.post.postId);
    if (group) group.push(r);
    else byId.set(r.post.postId, [r]);
  }
  const kept: ValidRow[] = [];
  const issues: ImportIssue[] = [];
  for (const [id, [first, ...rest]] of byId) {
    if (rest.every((r) => sameBody(r.post, first!.post))) {
      kept.push(first!);
      for (const r of rest)
        issues.push({
          at: r.at,
          kind: 'duplicate',
          reason: `post ${id}: the same as ${first!.at}`,
        });
      continue;
    }
    const all = [first!, ...rest];
    for (const r of all) {
      const others = all.filter((o) => o !== r).map((o) => o.at);
      issues.push({
        at: r.at,
        kind: 'conflict',
        reason: clip(`post ${id}: another body in ${others.join(', ')}; none of them imported`),
      });
    }
  }
  return { rows: kept, issues };
}

export interface Chunk {
  readonly profileId: bigint;
  readonly rows: readonly ValidRow[];
}

/** Consecutive rows of one profile, at most `max` per chunk, in the order they came. */
export async function* chunksOf(rows: AsyncIterable<ValidRow>, max: number): AsyncGenerator<Chunk> {
  let current: ValidRow[] = [];
  const profileOf = (r: ValidRow) => r.post.authorId;
  for await (const row of rows) {
    const same = current.length > 0 && profileOf(current[0]!) === profileOf(row);
    if (current.length > 0 && (!same || current.length >= max)) {
      yield { profileId: profileOf(current[0]!), rows: current };
      current = [];
    }
    current.push(row);
  }
  if (current.length > 0) yield { profileId: profileOf(current[0]!), rows: current };
}

/** What a checkpoint file holds: the source it belongs to and the slices that finished. */
export interface Checkpoint {
  readonly source: string;
  readonly slices: number;
  readonly done: readonly number[];
}

export function encodeCheckpoint(c: Checkpoint): string {
  return JSON.stringify({
    source: c.source,
    slices: c.slices,
    done: [...c.done].sort((a, b) => a - b),
  });
}

/** The checkpoint, or an error when it belongs to another source or slicing (never mixed). */
export function decodeCheckpoint(text: string, source: string, slices: number): Checkpoint {
  const raw = JSON.parse(text) as Partial<Checkpoint>;
  if (raw.source !== source || raw.slices !== slices || !Array.isArray(raw.done)) {
    throw new Error(
      `checkpoint is for ${String(raw.source)} in ${String(raw.slices)} slices, not ${source} in ${slices}`,
    );
  }
  return { source, slices, done: raw.done.filter((i) => Number.isInteger(i)) };
}
