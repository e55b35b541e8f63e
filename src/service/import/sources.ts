/**
 * The two kinds of import source (run-import.ts `ImportSource`): a platform's CQL table, scanned
 * by token slices (store/source-table.ts), and NDJSON lines from a file or stdin, one post a line:
 *   {"profile_id":"42","post_id":"4213…","created_at":"2026-06-01T12:03:00.123Z","caption":"…","media_url":"…"}
 * exactly the fields of the service route (`PUT /v1/profiles/:profile_id/posts/:post_id`, its
 * path IDs and body without collaborators), IDs as decimal strings (or JSON integers below 2^53).
 * Both only read: every row goes, with its place (`line 7`, or the CQL row's key), to the
 * importer's check (domain/import-plan.ts `checkRow`), so a line that is not JSON or breaks a rule
 * is reported with its line number and the reason, never guessed at. NDJSON is one slice: a rerun
 * after a kill reads it again from the start, and every chunk it had finished is a no-op.
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { MAX_TOKEN, MIN_TOKEN, tokenSlices, type SourceRow } from '../../domain/import-plan.js';
import type { SourceTable } from '../../store/source-table.js';
import type { ImportSource } from './run-import.js';

export function cqlSource(table: SourceTable, slices = 64): ImportSource {
  return { name: table.name, slices: tokenSlices(slices), rows: (s) => table.scan(s) };
}

export function ndjsonSource(name: string, input: () => Readable): ImportSource {
  async function* rows(): AsyncGenerator<SourceRow> {
    let n = 0;
    for await (const line of createInterface({ input: input(), crlfDelay: Infinity })) {
      n += 1;
      if (line.trim() === '') continue;
      const at = `line ${n}`;
      let fields: unknown;
      try {
        fields = JSON.parse(line);
      } catch (err) {
        yield { at, unreadable: `not JSON: ${err instanceof Error ? err.message : String(err)}` };
        continue;
      }
      yield { at, fields };
    }
  }
  return { name, slices: [{ index: 0, lo: MIN_TOKEN, hi: MAX_TOKEN }], rows };
}
