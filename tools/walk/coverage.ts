/**
 * Reads one V8 coverage file (what `v8.takeCoverage()` writes under NODE_V8_COVERAGE) down to
 * the `src/` files that ran code in its window.
 *
 * Node collects precise block coverage with call counts, and `takeCoverage()` resets the counts
 * after writing, so each file holds one window's counts. A function V8 compiled before (or
 * during) the window but did not run in it is still listed, with count 0 on its function range
 * and on every block in it: that is why a file counts only when one of its ranges has count > 0,
 * never merely for being listed.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

interface Range {
  readonly startOffset: number;
  readonly endOffset: number;
  readonly count: number;
}
interface ScriptCoverage {
  readonly url: string;
  readonly functions: ReadonlyArray<{ readonly ranges: readonly Range[] }>;
}

/** The files under `<root>/src/` with any range run in the window, relative to the root. */
export function filesRun(coverageFile: string, root: string): Set<string> {
  const prefix = pathToFileURL(`${root}/src/`).href;
  const { result } = JSON.parse(readFileSync(coverageFile, 'utf8')) as {
    result: ScriptCoverage[];
  };
  const out = new Set<string>();
  for (const script of result) {
    if (!script.url.startsWith(prefix)) continue;
    const ran = script.functions.some((f) => f.ranges.some((r) => r.count > 0));
    if (ran) out.add(`src/${decodeURIComponent(script.url.slice(prefix.length))}`);
  }
  return out;
}

export function intersect(sets: readonly Set<string>[]): Set<string> {
  const [first, ...rest] = sets;
  return new Set([...(first ?? [])].filter((f) => rest.every((s) => s.has(f))));
}

export function minus(a: Set<string>, b: Set<string>): Set<string> {
  return new Set([...a].filter((f) => !b.has(f)));
}
