import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { filesRun, intersect, minus } from '../../../tools/walk/coverage.js';

const root = '/repo';
const url = (p: string) => pathToFileURL(`${root}/${p}`).href;
const fn = (...counts: number[]) => ({
  ranges: counts.map((count, i) => ({ startOffset: i, endOffset: 100 - i, count })),
});

describe('filesRun', () => {
  it('counts a src/ file only when a range ran: compiled-but-not-run functions report 0', () => {
    const dir = mkdtempSync(join(tmpdir(), 'walk-test-'));
    const file = join(dir, 'coverage.json');
    writeFileSync(
      file,
      JSON.stringify({
        result: [
          { url: url('src/ran.ts'), functions: [fn(0), fn(1, 0)] },
          { url: url('src/block-only.ts'), functions: [fn(0, 2)] },
          { url: url('src/compiled-only.ts'), functions: [fn(0), fn(0, 0)] },
          { url: url('tools/elsewhere.ts'), functions: [fn(5)] },
          { url: 'node:internal/x', functions: [fn(5)] },
        ],
      }),
    );
    expect([...filesRun(file, root)].sort()).toEqual(['src/block-only.ts', 'src/ran.ts']);
  });
});

describe('intersect and minus', () => {
  it('keeps what every window ran, then drops what an idle window ran', () => {
    const w = [new Set(['a', 'b', 'c']), new Set(['a', 'b']), new Set(['b', 'a', 'd'])];
    expect([...minus(intersect(w), new Set(['b']))]).toEqual(['a']);
  });
});
