/**
 * The import's spans (`regrid import`, src/cli/cmd-import.ts), made only when tracing is on
 * (src/obs/tracing.ts): `regrid.import` for the run, a `regrid.import.chunk` child per chunk
 * (one profile's posts), and under each chunk its write line turn, CAS attempts and statements:
 * the chunk runs in a statement scope carrying its context, which the write line takes as each
 * write's parent (service/write-line/write-trace.ts).
 */
import type { ChunkRunner, ImportTotals } from './import/run-import.js';
import { startSpan, tracing } from '../obs/tracing.js';
import { statementScope } from '../store/statement-scope.js';
import { turnScope } from './write-line/write-trace.js';

export function tracedImport(
  run: ChunkRunner,
): { run: ChunkRunner; end(totals: ImportTotals | undefined): void } | undefined {
  if (!tracing()) return undefined;
  const root = startSpan('regrid.import', undefined)!;
  return {
    run: async (profileId, posts) => {
      const chunk = startSpan('regrid.import.chunk', root.context, {
        attributes: { 'regrid.profile_id': profileId.toString(), 'regrid.posts': posts.length },
      })!;
      try {
        return await statementScope.run(turnScope(chunk.context), () => run(profileId, posts));
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
