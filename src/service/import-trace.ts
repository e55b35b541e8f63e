/**
 * The import's spans (`regrid import`, src/cli/cmd-import.ts), made only when tracing is on
 * (src/obs/tracing.ts): `regrid.import` for the run, a `regrid.import.chunk` child per chunk
 * (one profile's posts), and under each chunk its write line turn, CAS attempts and statements:
 * the chunk is handed a statement scope carrying its context, which its writes carry and the
 * write line takes as each write's parent (service/write-line/write-trace.ts).
 */
import type { ChunkRunner, ImportTotals } from './import/run-import.js';
import { startSpan, tracedContext, type TracingRuntime } from '../obs/tracing.js';
import { turnScope } from './write-line/write-trace.js';

export function tracedImport(
  run: ChunkRunner,
  tracing: TracingRuntime,
): { run: ChunkRunner; end(totals: ImportTotals | undefined): void } {
  const root = startSpan('regrid.import', tracedContext(tracing))!;
  return {
    run: async (profileId, posts) => {
      const chunk = startSpan('regrid.import.chunk', root.context, {
        attributes: { 'regrid.profile_id': profileId.toString(), 'regrid.posts': posts.length },
      })!;
      try {
        return await run(profileId, posts, turnScope(chunk.context));
      } finally {
        chunk.span.end();
      }
    },
    end: (totals) => {
      if (totals) {
        root.span.setAttributes({
          'regrid.import.rows': totals.rows,
          'regrid.import.imported': totals.imported,
          'regrid.import.conflicts': totals.conflicts,
        });
      }
      root.span.end();
    },
  };
}
