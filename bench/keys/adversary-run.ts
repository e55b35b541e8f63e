/**
 * `npm run bench:keys -- --adversary [--json PATH] [--moves N] [--property-moves N]`: every
 * adversary of adversaries.ts at n = 10^3, 10^4, 10^5 overridden posts (1 s apart), against the
 * adaptive policy as it was (no cap) and the default policy under the row cap, side by side; then
 * the bound's property check: a mixed run of random and adversarial moves (10^6 by default) in which
 * the rows written after every move t must stay <= bound(n) · t + Φ_0.
 *
 * The simulated clock starts 1 s after the newest post and advances 1 ms per move (an adversary
 * far faster than the move rate limit allows); a move's ceiling is the ID issued at that instant.
 */
import { composeId } from '../../src/domain/ids.js';
import { amortizedBound, DEFAULT_ROW_CAP, potential } from '../../src/domain/keys.js';
import { DEFAULT_POLICY, type RelabelPolicy } from './policies.js';
import { createRng } from '../../tools/loadtest/rng.js';
import { adversary, ADVERSARIES, type AdversaryName } from './adversaries.js';
import { CappedGrid } from './capped-grid.js';

const START_MS = Date.UTC(2026, 0, 1);
const ceilingAt = (ms: number) => composeId({ ms, worker: 1, sequence: 1 });

export interface AdversaryRun {
  readonly policy: RelabelPolicy;
  readonly adversary: AdversaryName | 'mixed';
  readonly n: number;
  readonly moves: number;
  readonly cap: number | null;
  readonly amortized_rows_per_move: number;
  readonly worst_move_rows: number; // the largest single write (one compare-and-set)
  readonly worst_move_total_rows: number; // the most rows one move wrote over all its writes
  readonly most_writes_per_move: number;
  readonly bound: number;
  readonly fill: { readonly min_gap_log2: number; readonly gaps_below_2_16: number };
  readonly elapsed_ms: number;
}

function seeded(n: number): bigint[] {
  return Array.from({ length: n }, (_, i) =>
    composeId({ ms: START_MS + i * 1000, worker: 1, sequence: 0 }),
  );
}

function fill(grid: CappedGrid) {
  let min = -1n;
  let small = 0;
  for (let i = 1; i < grid.length; i++) {
    const d = grid.entries[i]!.key - grid.entries[i - 1]!.key;
    if (min < 0n || d < min) min = d;
    if (d < 1n << 16n) small++;
  }
  return { min_gap_log2: min.toString(2).length - 1, gaps_below_2_16: small / (grid.length - 1) };
}

export function runAdversary(
  name: AdversaryName | 'mixed',
  n: number,
  moves: number,
  policy: RelabelPolicy,
  cap: number | undefined,
  seed = 1,
  onPrefix?: (t: number, rows: number) => void,
): AdversaryRun {
  const began = performance.now();
  const grid = new CappedGrid(seeded(n), policy, cap);
  const random = createRng(seed + 7).next;
  const pick = (list: readonly AdversaryName[]) => list[Math.floor(random() * list.length)]!;
  const cheap = ADVERSARIES.filter((a) => a !== 'search');
  const adv = new Map(ADVERSARIES.map((a) => [a, adversary(a, seed, grid)]));
  let ms = START_MS + n * 1000;
  let rows = 0;
  let worst = 0;
  let worstTotal = 0;
  let mostWrites = 0;
  for (let t = 0; t < moves; t++, ms++) {
    const ceiling = ceilingAt(ms);
    let m;
    if (name !== 'mixed') m = adv.get(name)!(grid, t, ceiling);
    else if (random() < 0.5) {
      const from = Math.floor(random() * n);
      m = { from, to: Math.floor(random() * n) };
    } else m = adv.get(random() < 0.01 ? 'search' : pick(cheap))!(grid, t, ceiling);
    const r = grid.move(m.from, m.to, ceiling);
    rows += r.rows;
    worst = Math.max(worst, r.worstWrite);
    worstTotal = Math.max(worstTotal, r.rows);
    mostWrites = Math.max(mostWrites, r.writes);
    onPrefix?.(t + 1, rows);
    if (t % 1000 === 999) grid.checkAll(ceiling);
  }
  grid.checkAll(ceilingAt(ms));
  return {
    policy,
    adversary: name,
    n,
    moves,
    cap: cap ?? null,
    amortized_rows_per_move: rows / moves,
    worst_move_rows: worst,
    worst_move_total_rows: worstTotal,
    most_writes_per_move: mostWrites,
    bound: amortizedBound(n),
    fill: fill(grid),
    elapsed_ms: Math.round(performance.now() - began),
  };
}

export interface PropertyCheck {
  readonly n: number;
  readonly moves: number;
  readonly bound: number;
  readonly phi0: number;
  readonly worst_slack: number; // min over prefixes of bound · t + Φ_0 − rows
  readonly held: boolean;
}

/** The mixed run at full size, checking rows <= bound · t + Φ_0 after every move. */
export function propertyCheck(n: number, moves: number, seed = 1): PropertyCheck {
  const bound = amortizedBound(n);
  const phi0 = potential(seeded(n), ceilingAt(START_MS + n * 1000));
  let worstSlack = Infinity;
  runAdversary('mixed', n, moves, DEFAULT_POLICY, DEFAULT_ROW_CAP, seed, (t, rows) => {
    const slack = bound * t + phi0 - rows;
    if (slack < worstSlack) worstSlack = slack;
  });
  return { n, moves, bound, phi0, worst_slack: worstSlack, held: worstSlack >= 0 };
}

export const SIZES = [1_000, 10_000, 100_000] as const;

export function adversaryTable(runs: readonly AdversaryRun[]): string {
  const head =
    'adversary          n        adaptive (no cap): rows/move  worst   |  bounded (cap): rows/move  worst  worst total  bound';
  const lines = [head];
  for (const a of ADVERSARIES) {
    for (const n of SIZES) {
      const old = runs.find((r) => r.adversary === a && r.n === n && r.policy === 'adaptive');
      const now = runs.find((r) => r.adversary === a && r.n === n && r.policy === DEFAULT_POLICY);
      if (!old || !now) continue;
      lines.push(
        `${a.padEnd(17)}  ${String(n).padStart(6)}  ${old.amortized_rows_per_move.toFixed(4).padStart(28)}  ${String(old.worst_move_rows).padStart(6)}   |  ${now.amortized_rows_per_move.toFixed(4).padStart(24)}  ${String(now.worst_move_rows).padStart(5)}  ${String(now.worst_move_total_rows).padStart(11)}  ${now.bound.toFixed(0).padStart(5)}`,
      );
    }
  }
  return lines.join('\n');
}
