/** The read benchmark's printed table (bench/read.ts), from the figures of one run. */
import type { DepthReport } from './depth.js';
import type { HerdReport, ThroughputReport } from './measure.js';

export const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

/** The largest of the four page latencies at the most overrides, each over its 0-override twin. */
export function worstDepthRatio(depths: DepthReport[]): number {
  const zero = depths.find((d) => d.overrides === 0);
  const most = depths[depths.length - 1];
  if (!zero || !most) return NaN;
  const pick = (d: (typeof depths)[number]) => [
    d.coldFirstPageMs,
    d.warmFirstPageMs,
    d.page5Ms,
    d.warmPage5Ms,
  ];
  const z = pick(zero);
  return Math.max(...pick(most).map((x, i) => ratio(x, z[i]!)));
}

export function table(
  r: { machine: { cores: number; cpu: string; node: string }; cached_over_bare: number },
  t: ThroughputReport,
  on: HerdReport,
  depths: DepthReport[],
  { seconds, connections, samples }: { seconds: number; connections: number; samples: number },
): string {
  const row = (cells: Array<string | number>, widths: number[]) =>
    cells
      .map((c, i) => (i === 0 ? String(c).padEnd(widths[i]!) : String(c).padStart(widths[i]!)))
      .join('');
  const w1 = [18, 10, 10, 10, 8, 2];
  const w2 = [18, 8, 20, 13, 9];
  const w3 = [11, 17, 17, 14, 14, 6];
  return [
    `regrid read benchmark: ${r.machine.cores} cores (${r.machine.cpu}), Node ${r.machine.node}`,
    `first page, limit 24 (${t.responseBytes} bytes of JSON), ${connections} connections, loopback; app wired as`,
    `in production (deadlines, request log); medians of ${t.rounds} interleaved rounds of ${seconds} s per configuration`,
    row(['', 'rps', 'p50 ms', 'p99 ms', 'errors', '  rps per round'], w1),
    ...(
      [
        ['bare Hono route', t.bare],
        ['one Redis GET', t.redisFloor],
        ['hit, all tiers', t.cached],
        ['304 Not Modified', t.notModified],
        ['hit, Redis tier', t.cachedRedis],
        ['cache miss', t.miss],
      ] as const
    ).map(([name, x]) =>
      row([name, x.rps, x.p50Ms, x.p99Ms, x.errors, `  ${x.roundsRps.join(' ')}`], w1),
    ),
    `cached / bare = ${r.cached_over_bare}   cached / Redis GET = ${ratio(t.cached.rps, t.redisFloor.rps)}   Redis tier / Redis GET = ${ratio(t.cachedRedis.rps, t.redisFloor.rps)}`,
    `304 / bare = ${ratio(t.notModified.rps, t.bare.rps)}   cached / miss = ${ratio(t.cached.rps, t.miss.rps)}   (fills during the cached run: ${t.cachedFillsDuringRun})`,
    '',
    `thundering herd: ${on.readers} simultaneous first-page readers right after a version change`,
    row(['', 'fills', 'Cassandra queries', 'non-200'], w2),
    row(['with leases', on.fills, on.cassandraQueries, on.non200], w2),
    '',
    `latency by override count (10,000 posts each; ms, median of ${samples} rounds visiting every`,
    `profile in turn; cold = nothing in Redis)`,
    row(
      ['overrides', 'cold first page', 'warm first page', 'cold page 5', 'warm page 5', 'copy'],
      w3,
    ),
    ...depths.map((d) =>
      row(
        [
          d.overrides,
          d.coldFirstPageMs,
          d.warmFirstPageMs,
          d.page5Ms,
          d.warmPage5Ms,
          d.copiesBuilt > 0 ? 'yes' : 'no',
        ],
        w3,
      ),
    ),
    `worst page latency at ${depths[depths.length - 1]?.overrides} overrides / at 0: ${worstDepthRatio(depths)}`,
  ].join('\n');
}
