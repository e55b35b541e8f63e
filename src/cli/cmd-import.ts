/**
 * `regrid import`: a platform's existing posts onto their grids (service/import/,
 * docs/integration.md), from a CQL table of the configured cluster or NDJSON (a file, or - for
 * stdin). Connects like the server does (migrations checked first, and Redis: each chunk's commit
 * drops the grid's cached state and publishes its version to the change stream like any API
 * write, and the command waits for those publishes before it exits); never writes the source.
 * Progress on stderr (slices, posts, posts/s, ETA), the totals on stdout (or --json, with every
 * skipped row). Exit 0 when every source post is on its grid, 1 when some were not (conflicts,
 * invalid rows, failed slices: a rerun with the same --checkpoint redoes the failed slices),
 * 2 usage, 3 unavailable (Cassandra, or Redis when REDIS_URL names one).
 */
import { createReadStream } from 'node:fs';
import { commandService, openCassandra, openRedis, type FindCassandra } from '../bootstrap.js';
import { loadConfig } from '../config/config.js';
import type { ImportIssue } from '../domain/import-plan.js';
import { cqlSource, ndjsonSource } from '../service/import/sources.js';
import { runImport, type ImportSource, type ImportTotals } from '../service/import/run-import.js';
import type { ChunkRunner } from '../service/import/run-import.js';
import { tracedImport } from '../service/import-trace.js';
import { startTracing } from '../obs/tracing.js';
import { version } from '../obs/build-info.js';
import { consistencyOf, type Cql } from '../store/cassandra.js';
import { SourceTable } from '../store/source-table.js';
import type { Parsed } from './command-specs.js';
import { EXIT, UsageError } from './exit-codes.js';
import type { Io } from './regrid-commands.js';

/** Skipped rows the human report lists (`--json` lists every one). */
const LISTED = 10;

const str = (v: Parsed['values'][string]) => (typeof v === 'string' ? v : undefined);
const positiveInt = (v: Parsed['values'][string], what: string, def: number) => {
  const s = str(v);
  if (s === undefined) return def;
  const n = Number(s);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${what} must be a whole number`);
  return n;
};

export async function run(parsed: Parsed, io: Io, find: FindCassandra): Promise<number> {
  const v = parsed.values;
  const fromCql = str(v['from-cql']);
  const fromNdjson = str(v['from-ndjson']);
  if ((fromCql === undefined) === (fromNdjson === undefined))
    throw new UsageError('give exactly one of --from-cql keyspace.table or --from-ndjson FILE|-');
  const slices = positiveInt(v['slices'], 'slices', 64);
  const options = {
    parallel: Math.max(1, positiveInt(v['parallel'], 'parallel', 4)),
    ratePerS: positiveInt(v['rate'], 'rate', 0),
    checkpointPath: str(v['checkpoint']),
  };
  let table: { keyspace: string; table: string } | undefined;
  if (fromCql !== undefined) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(fromCql);
    if (!m) throw new UsageError('--from-cql must be keyspace.table');
    if (!str(v['profile-column']) || !str(v['post-column']))
      throw new UsageError('--from-cql needs --profile-column and --post-column');
    table = { keyspace: m[1]!, table: m[2]! };
  }

  const { config, target } = await find(loadConfig(), (l) => io.err(l));
  const tracing = await startTracing(version); // OTEL_* (docs/operating.md "Traces")
  const session = await openCassandra(config, () => undefined, 'apply', target);
  // The same Redis as the server: without it the grids' cached pages would outlive the import
  // and its versions would reach the change stream only with each profile's next write.
  const redis = await openRedis(config, (l) => io.err(l));
  let traced: ReturnType<typeof tracedImport> | undefined;
  let totals: ImportTotals | undefined;
  try {
    if (redis && !(await redis.waitReady(0))) {
      io.err('redis: not reachable (the import must drop cached grids and publish its changes)');
      return EXIT.unavailable;
    }
    const service = commandService(session.cql, config, redis);
    const source: ImportSource = table
      ? cqlSource(tableSource(session.cql, config, table, v), slices)
      : ndjsonSource(fromNdjson!, () =>
          fromNdjson === '-' ? process.stdin : createReadStream(fromNdjson!),
        );
    const started = Date.now();
    const progress = progressLine(io, started);
    const chunk: ChunkRunner = (p, posts, s) => service.platform.importChunk(p, posts, s);
    traced = tracing ? tracedImport(chunk, tracing) : undefined;
    totals = await runImport(traced?.run ?? chunk, source, { ...options, onProgress: progress });
    await service.changes.settled(); // every imported version on the stream before we exit
    report(io, totals, (Date.now() - started) / 1000, v['json'] === true);
    const clean = totals.conflicts === 0 && totals.invalid === 0 && totals.failedSlices === 0;
    return clean ? EXIT.ok : EXIT.findings;
  } finally {
    traced?.end(totals);
    await Promise.allSettled([session.client.shutdown(), redis?.close()]);
    await tracing?.shutdown().catch(() => undefined); // flushes the last spans
  }
}

function tableSource(
  cql: Cql,
  config: ReturnType<typeof loadConfig>,
  t: { keyspace: string; table: string },
  v: Parsed['values'],
) {
  return new SourceTable(cql, consistencyOf(config), t.keyspace, t.table, {
    profile: str(v['profile-column'])!,
    post: str(v['post-column'])!,
    created: str(v['created-column']),
    caption: str(v['caption-column']),
    media: str(v['media-column']),
  });
}

/** At most one progress line a second: slices, posts, rate and ETA (from the slices left). */
function progressLine(io: Io, started: number): (t: ImportTotals) => void {
  let last = 0;
  return (t) => {
    const now = Date.now();
    if (now - last < 1000 && t.slicesDone < t.slicesTotal) return;
    last = now;
    const s = (now - started) / 1000;
    const share = t.slicesDone / t.slicesTotal;
    const width = 24;
    const bar = '#'.repeat(Math.round(share * width)).padEnd(width, '.');
    const eta = share > 0 ? `${Math.round((s / share) * (1 - share))} s` : '?';
    io.err(
      `[${bar}] ${t.slicesDone}/${t.slicesTotal} slices, ${t.rows} posts read, ${t.imported} imported, ` +
        `${Math.round(t.rows / Math.max(s, 0.001))} posts/s, ETA ${eta}`,
    );
  };
}

const issueLine = (i: ImportIssue) => `${i.at}: ${i.kind}: ${i.reason}`;

function report(io: Io, t: ImportTotals, seconds: number, json: boolean): void {
  const summary = {
    posts_read: t.rows,
    imported: t.imported,
    already_there: t.present,
    removed: t.removed,
    duplicates: t.duplicates,
    conflicts: t.conflicts,
    invalid: t.invalid,
    versions_bumped: t.bumps,
    slices_done: t.slicesDone,
    slices_failed: t.failedSlices,
    seconds: Math.round(seconds * 10) / 10,
    issues: t.issues,
  };
  if (json) {
    io.out(JSON.stringify(summary));
    return;
  }
  io.out(
    `imported ${t.imported} posts (${t.present} already there, ${t.removed} removed before, ${t.duplicates} duplicates, ` +
      `${t.conflicts} conflicts, ${t.invalid} invalid) in ${summary.seconds} s; ` +
      `${t.bumps} grid versions bumped; slices ${t.slicesDone}/${t.slicesTotal} done` +
      `${t.failedSlices ? `, ${t.failedSlices} failed` : ''}`,
  );
  for (const i of t.issues.slice(0, LISTED)) io.err(`  ${issueLine(i)}`);
  if (t.issues.length > LISTED)
    io.err(`  … and ${t.issues.length - LISTED} more (--json lists every one)`);
}
