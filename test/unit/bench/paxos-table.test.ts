import { describe, expect, it } from 'vitest';
import { summarize, tableLines, type Step } from '../../../bench/paxos-table.js';

const step = (variant: 'v1' | 'v2', ceiling: number, moves: number): Step => ({
  variant,
  witnesses: { jmx: variant, settings: variant },
  raw_ceiling_per_s: ceiling,
  moves_per_s: moves,
  ceiling_ratio: Math.round((moves / ceiling) * 1000) / 1000,
  moves: 100,
  move_p50_ms: 10,
  move_p99_ms: 20,
  cas_attempts_per_move: 1,
  violations: 0,
});

describe('bench:paxos figures', () => {
  it('gives v2/v1 ratios of the means and of each round, whatever the order within it', () => {
    const steps = [
      step('v1', 100, 50),
      step('v2', 300, 60),
      step('v2', 500, 80),
      step('v1', 200, 40),
    ];
    const s = summarize(steps);
    expect(s.means.v1).toEqual({ raw_ceiling_per_s: 150, moves_per_s: 45, ceiling_ratio: 0.35 });
    expect(s.means.v2).toMatchObject({ raw_ceiling_per_s: 400, moves_per_s: 70 });
    expect(s.ratios_v2_over_v1).toEqual({ raw_ceiling: 2.67, moves: 1.56 });
    expect(s.round_ratios_v2_over_v1).toEqual([
      { raw_ceiling: 3, moves: 1.2 },
      { raw_ceiling: 2.5, moves: 2 },
    ]);
    const text = tableLines(steps, s).join('\n');
    expect(text).toContain('| 3 | v2 | 500 | 80 | 0.16 | 10 / 20 | 1 | 0 |');
    expect(text).toContain('per round: #1 ceiling 3×, moves 1.2×; #2 ceiling 2.5×, moves 2×');
  });
});
