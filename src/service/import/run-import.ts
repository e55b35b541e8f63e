/**
 * `regrid import`: existing posts from a platform's own table (store/source-table.ts) or from
 * NDJSON lines brought onto their grids without rewriting anything the platform has (the source
 * is only read) and without a backfill of regrid's overrides (imported posts need none: they
 * land by their IDs).
 *
 * Work: the source's slices (one for NDJSON) run `parallel` at a time; within a slice, every row
 * is checked by the API's rule (domain/import-plan.ts `checkRow`), the valid ones cut into chunks
 * of one profile, a chunk's rows of one post ID collapsed (`collapseDuplicates`), and each chunk
 * is one idempotent compare-and-set (import-chunk.ts) through the grid writer every API write
 * uses. Every skipped row is in `issues` with its place in the source and the reason. A chunk
 * that fails is retried a few times, then the slice fails and is left out of the checkpoint, so
 * the next run redoes it. `ratePerS` throttles the
 * posts read per second across all slices. The checkpoint file (rewritten whole after every
 * slice, by rename) lets a killed import skip the slices it finished.
 */
import { randomUUID } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import type {
  Chunk,
  Checkpoint,
  ImportIssue,
  SourceRow,
  TokenSlice,
  ValidRow,
} from '../../domain/import-plan.js';
import {
  checkRow,
  chunksOf,
  collapseDuplicates,
  decodeCheckpoint,
  encodeCheckpoint,
} from '../../domain/import-plan.js';
import type { Post } from '../../domain/post.js';
import { importedPosts, importErrors } from '../../obs/import-metrics.js';
import type { ChunkOutcome } from './import-chunk.js';
import type { StatementScope } from '../../store/statement-scope.js';

export interface ImportSource {
  /** What the checkpoint names (`keyspace.table`, or the NDJSON path). */
  readonly name: string;
  readonly slices: readonly TokenSlice[];
  rows(slice: TokenSlice): AsyncIterable<SourceRow>;
}

export interface ImportOptions {
  readonly parallel?: number;
  readonly chunkSize?: number;
  /** Source posts per second across the import; 0 = unthrottled. */
  readonly ratePerS?: number;
  readonly checkpointPath?: string | undefined;
  readonly onProgress?: (p: ImportTotals) => void;
}

export interface ImportTotals {
  rows: number;
  imported: number;
  present: number;
  /** Posts deleted or taken down in regrid before: their IDs are spent, never imported. */
  removed: number;
  /** Rows the same as an earlier row of their chunk: counted once. */
  duplicates: number;
  conflicts: number;
  invalid: number;
  /** Chunks whose compare-and-set committed (profiles' versions bumped, once per chunk). */
  bumps: number;
  slicesDone: number;
  slicesTotal: number;
  failedSlices: number;
  /** Every skipped row (and failed slice), with where it is and why, in the order met. */
  readonly issues: ImportIssue[];
}

/** One chunk onto one grid: `GridService.importChunk` (import-chunk.ts). */
/** Imports one chunk; `scope` carries the chunk's trace context when traced (import-trace.ts). */
export type ChunkRunner = (
  profileId: bigint,
  posts: readonly Post[],
  scope?: StatementScope,
) => Promise<ChunkOutcome>;

export async function runImport(
  run: ChunkRunner,
  source: ImportSource,
  opts: ImportOptions = {},
): Promise<ImportTotals> {
  const done = new Set((await readCheckpoint(source, opts.checkpointPath))?.done ?? []);
  const totals: ImportTotals = {
    rows: 0,
    imported: 0,
    present: 0,
    removed: 0,
    duplicates: 0,
    conflicts: 0,
    invalid: 0,
    bumps: 0,
    slicesDone: done.size,
    slicesTotal: source.slices.length,
    failedSlices: 0,
    issues: [],
  };
  const throttle = throttleOf(opts.ratePerS ?? 0);
  const pending = source.slices.filter((s) => !done.has(s.index));
  const worker = async () => {
    for (let s = pending.shift(); s; s = pending.shift()) {
      try {
        for await (const chunk of chunksOf(
          checked(source.rows(s), totals),
          opts.chunkSize ?? 100,
        )) {
          await throttle(chunk.rows.length);
          await importOne(run, chunk, totals);
          opts.onProgress?.(totals);
        }
        done.add(s.index);
        // Counted once the checkpoint holds it: progress never names a slice a kill would redo.
        await writeCheckpoint(source, opts.checkpointPath, done);
        totals.slicesDone += 1;
      } catch (err) {
        totals.failedSlices += 1;
        const reason = err instanceof Error ? err.message : String(err);
        totals.issues.push({ at: `slice ${s.index}`, kind: 'failed', reason });
      }
      opts.onProgress?.(totals);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.parallel ?? 4) }, worker));
  return totals;
}

/** The rows that pass the API's rule; the others go into the report, counted as invalid. */
async function* checked(rows: AsyncIterable<SourceRow>, t: ImportTotals): AsyncGenerator<ValidRow> {
  for await (const row of rows) {
    t.rows += 1;
    const out = checkRow(row);
    if ('post' in out) {
      yield out;
      continue;
    }
    t.invalid += 1;
    t.issues.push(out);
    importedPosts.inc({ outcome: 'invalid' });
  }
}

async function importOne(run: ChunkRunner, chunk: Chunk, t: ImportTotals): Promise<void> {
  const { rows, issues } = collapseDuplicates(chunk.rows);
  for (const issue of issues) {
    t.issues.push(issue);
    if (issue.kind === 'duplicate') t.duplicates += 1;
    else t.conflicts += 1;
    importedPosts.inc({ outcome: issue.kind });
  }
  if (rows.length === 0) return;
  let out: ChunkOutcome | undefined;
  for (let attempt = 1; !out; attempt++) {
    try {
      out = await run(
        chunk.profileId,
        rows.map((r) => r.post),
      );
    } catch (err) {
      importErrors.inc();
      if (attempt >= 3) throw err; // the slice fails; the checkpoint keeps it for the next run
      await new Promise((r) => setTimeout(r, 200 * attempt));
    }
  }
  t.imported += out.imported;
  t.present += out.present;
  t.removed += out.removed;
  t.conflicts += out.conflicts;
  for (const id of out.conflictIds) {
    const at = rows.find((r) => r.post.postId === id)?.at ?? `post ${id}`;
    t.issues.push({ at, kind: 'conflict', reason: `post ${id}: regrid already holds another body under this ID` }); // prettier-ignore
  }
  if (out.bumped) t.bumps += 1;
  importedPosts.inc({ outcome: 'imported' }, out.imported);
  importedPosts.inc({ outcome: 'present' }, out.present);
  importedPosts.inc({ outcome: 'removed' }, out.removed);
  importedPosts.inc({ outcome: 'conflict' }, out.conflicts);
}

/** Waits so that no more than `rate` posts a second start, on average (0 = never waits). */
function throttleOf(rate: number): (n: number) => Promise<void> {
  if (rate <= 0) return async () => {};
  let next = Date.now();
  return async (n) => {
    const now = Date.now();
    const start = Math.max(now, next);
    next = start + (n * 1000) / rate;
    if (start > now) await new Promise((r) => setTimeout(r, start - now));
  };
}

async function readCheckpoint(source: ImportSource, path: string | undefined) {
  if (!path) return undefined;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return undefined; // no checkpoint yet: a first run
  }
  return decodeCheckpoint(text, source.name, source.slices.length);
}

async function writeCheckpoint(source: ImportSource, path: string | undefined, done: Set<number>) {
  if (!path) return;
  const c: Checkpoint = { source: source.name, slices: source.slices.length, done: [...done] };
  const tmp = `${path}.${process.pid}.${randomUUID()}.tmp`; // slices finish concurrently
  await writeFile(tmp, encodeCheckpoint(c));
  await rename(tmp, path);
}
