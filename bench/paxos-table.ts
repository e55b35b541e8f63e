/**
 * bench:paxos's figures: the steps it measured, their means per variant, the v2/v1 ratios of the
 * means and of each round's adjacent pair (how far the ratio moves between rounds says how
 * noisy the machine was), and the printed table. Pure.
 */
import type { PaxosVariant } from '../tools/infra/paxos-variant.js';

export interface Step {
  readonly variant: PaxosVariant;
  readonly witnesses: { jmx: string; settings: string | undefined };
  readonly raw_ceiling_per_s: number;
  readonly moves_per_s: number;
  readonly ceiling_ratio: number;
  readonly moves: number;
  readonly move_p50_ms: number | null;
  readonly move_p99_ms: number | null;
  readonly cas_attempts_per_move: number | null;
  readonly violations: number;
}

interface Means {
  readonly raw_ceiling_per_s: number;
  readonly moves_per_s: number;
  readonly ceiling_ratio: number;
}

interface Ratios {
  readonly raw_ceiling: number;
  readonly moves: number;
}

export interface PaxosSummary {
  readonly means: Record<PaxosVariant, Means>;
  readonly ratios_v2_over_v1: Ratios;
  /** The same ratios within each round (its v1 step and its v2 step, adjacent in time). */
  readonly round_ratios_v2_over_v1: readonly Ratios[];
}

const r2 = (x: number) => Math.round(x * 100) / 100;
const r3 = (x: number) => Math.round(x * 1000) / 1000;
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

const ratiosOf = (v1: Omit<Means, 'ceiling_ratio'>, v2: Omit<Means, 'ceiling_ratio'>) => ({
  raw_ceiling: r2(v2.raw_ceiling_per_s / v1.raw_ceiling_per_s),
  moves: r2(v2.moves_per_s / v1.moves_per_s),
});

/** Steps come in rounds of two (one per variant, either order). */
export function summarize(steps: readonly Step[]): PaxosSummary {
  const meansOf = (v: PaxosVariant): Means => {
    const of = steps.filter((s) => s.variant === v);
    return {
      raw_ceiling_per_s: r2(mean(of.map((s) => s.raw_ceiling_per_s))),
      moves_per_s: r2(mean(of.map((s) => s.moves_per_s))),
      ceiling_ratio: r3(mean(of.map((s) => s.ceiling_ratio))),
    };
  };
  const means = { v1: meansOf('v1'), v2: meansOf('v2') };
  const rounds: Ratios[] = [];
  for (let i = 0; i + 1 < steps.length; i += 2) {
    const pair = [steps[i]!, steps[i + 1]!];
    const v1 = pair.find((s) => s.variant === 'v1');
    const v2 = pair.find((s) => s.variant === 'v2');
    if (v1 && v2) rounds.push(ratiosOf(v1, v2));
  }
  return {
    means,
    ratios_v2_over_v1: ratiosOf(means.v1, means.v2),
    round_ratios_v2_over_v1: rounds,
  };
}

export function tableLines(steps: readonly Step[], s: PaxosSummary): string[] {
  const m = s.means;
  return [
    '| step | variant | raw ceiling /s | moves/s | moves ÷ ceiling | move p50 / p99 ms | CAS/move | violations |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...steps.map(
      (x, i) =>
        `| ${i + 1} | ${x.variant} | ${x.raw_ceiling_per_s} | ${x.moves_per_s} | ${x.ceiling_ratio} | ${x.move_p50_ms} / ${x.move_p99_ms} | ${x.cas_attempts_per_move} | ${x.violations} |`,
    ),
    `mean v1: ceiling ${m.v1.raw_ceiling_per_s}/s, moves ${m.v1.moves_per_s}/s; mean v2: ceiling ${m.v2.raw_ceiling_per_s}/s, moves ${m.v2.moves_per_s}/s`,
    `v2 ÷ v1 of the means: ceiling ${s.ratios_v2_over_v1.raw_ceiling}×, moves ${s.ratios_v2_over_v1.moves}×; per round: ${s.round_ratios_v2_over_v1
      .map((r, i) => `#${i + 1} ceiling ${r.raw_ceiling}×, moves ${r.moves}×`)
      .join('; ')}`,
  ];
}
