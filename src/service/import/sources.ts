/**
 * The two kinds of import source (run-import.ts `ImportSource`): a platform's CQL table, scanned
 * by token slices (store/source-table.ts), and NDJSON lines from a file or stdin, one post a line:
 *   {"profile_id":"42","post_id":"4213…","created_at":"2026-06-01T12:03:00.123Z","caption":"…","media_url":"…"}
 * IDs as decimal strings (or JSON integers below 2^53). A line that is not such an object is
 * counted (`badLines`) and skipped, never guessed at. NDJSON is one slice: a rerun after a kill
 * reads it again from the start, and every chunk it had finished is a no-op.
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { MAX_TOKEN, MIN_TOKEN, tokenSlices, type SourceRow } from '../../domain/import-plan.js';
import type { SourceTable } from '../../store/source-table.js';
import type { ImportSource } from './run-import.js';

export function cqlSource(table: SourceTable, slices = 64): ImportSource {
  return { name: table.name, slices: tokenSlices(slices), rows: (s) => table.scan(s) };
}

const Id = z.union([
  z.string().regex(/^[1-9][0-9]{0,18}$/),
  z
    .number()
    .int()
    .positive()
    .max(2 ** 53),
]);
const NdjsonPost = z.object({
  profile_id: Id,
  post_id: Id,
  created_at: z.iso.datetime({ offset: true }).optional(),
  caption: z.string().max(2200).optional(),
  media_url: z.string().max(2048).optional(),
});

export interface NdjsonSource extends ImportSource {
  /** Lines that were not a post object, and the first few of them with their line numbers. */
  readonly bad: { count: number; readonly samples: string[] };
}

export function ndjsonSource(name: string, input: () => Readable): NdjsonSource {
  const bad = { count: 0, samples: [] as string[] };
  async function* rows(): AsyncGenerator<SourceRow> {
    let n = 0;
    for await (const line of createInterface({ input: input(), crlfDelay: Infinity })) {
      n += 1;
      if (line.trim() === '') continue;
      let parsed;
      try {
        parsed = NdjsonPost.safeParse(JSON.parse(line));
      } catch {
        parsed = undefined;
      }
      if (!parsed?.success) {
        bad.count += 1;
        if (bad.samples.length < 10) bad.samples.push(`line ${n}: not a post object`);
        continue;
      }
      const d = parsed.data;
      yield {
        profileId: BigInt(d.profile_id),
        postId: BigInt(d.post_id),
        createdAt: d.created_at === undefined ? undefined : new Date(d.created_at),
        caption: d.caption,
        mediaUrl: d.media_url,
      };
    }
  }
  return { name, slices: [{ index: 0, lo: MIN_TOKEN, hi: MAX_TOKEN }], rows, bad };
}
