/**
 * `regrid import --from-ndjson` (service/import/sources.ts) on the real stores: one post a line,
 * grouped by profile; lines that are not JSON or not a post, and rows that break the ID rule, are
 * invalid, reported by line number and skipped without stopping the import; a rerun is a no-op.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { composeId } from '../../../src/domain/ids.js';
import { runImport } from '../../../src/service/import/run-import.js';
import { ndjsonSource } from '../../../src/service/import/sources.js';
import { freshProfile, openFeatures, type Features } from '../features/harness.js';
import { openPerFile } from '../support/per-file.js';

let f: Features;
openPerFile(openFeatures, (opened) => {
  f = opened;
});

describe('regrid import from NDJSON', () => {
  it('imports every good line, counts the bad ones, and a rerun changes nothing', async () => {
    const a = freshProfile(f);
    const b = freshProfile(f);
    const base = Date.UTC(2024, 5, 1) + Number(a % 100_000n);
    const id = (k: number) => composeId({ ms: base + k * 1000, worker: 6500, sequence: k });
    const lines = [
      JSON.stringify({ profile_id: String(a), post_id: String(id(1)), caption: 'a1' }),
      JSON.stringify({
        profile_id: String(a),
        post_id: String(id(2)),
        created_at: new Date(base + 2000).toISOString(),
      }),
      '{"profile_id": "not a number"}',
      'not json at all',
      '',
      JSON.stringify({
        profile_id: String(b),
        post_id: String(id(3)),
        media_url: 'https://x/y.jpg',
      }),
      // created_at one millisecond off the ID's time: invalid, skipped.
      JSON.stringify({
        profile_id: String(b),
        post_id: String(id(4)),
        created_at: new Date(base + 4001).toISOString(),
      }),
    ];
    const source = () => ndjsonSource('posts.ndjson', () => Readable.from(lines.join('\n')));
    const run = f.service.platform.importChunk.bind(f.service.platform);
    const totals = await runImport(run, source());
    expect(totals.issues.map((i) => [i.at, i.kind])).toEqual([
      ['line 3', 'invalid'],
      ['line 4', 'invalid'],
      ['line 7', 'invalid'],
    ]);
    expect(totals.issues[2]!.reason).toMatch(/created_at/);
    expect([totals.imported, totals.invalid, totals.bumps]).toEqual([3, 3, 2]);
    expect((await f.service.readOrder(a)).postIds).toEqual([id(2), id(1)]);
    expect((await f.service.readOrder(b)).postIds).toEqual([id(3)]);
    expect((await f.service.getPost(id(1))).caption).toBe('a1');

    const again = await runImport(run, source());
    expect([again.imported, again.bumps, again.present]).toEqual([0, 0, 3]);
  });
});
