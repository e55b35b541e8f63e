/**
 * The scenario figures of a design's report (scenario.ts): 503 contention answers, conditional
 * batches per committed move, and the ceilings measured in the same run with the ratios of moves/s
 * to them. Ratios are computed from the reported (rounded) figures, so anyone can recompute them
 * from the JSON. Pure: figures in, fields out.
 */
import type { RawCeilingFigures } from './design.js';
import type { WorkloadResult } from './runner.js';
import type { Scenario } from './scenario.js';
import { round2 } from './stats.js';

export interface ScenarioFields {
  readonly scenario: Scenario;
  /** Moves answered 503 contention (every compare-and-set attempt lost); part of `rejected`. */
  readonly contention_503: number;
  /** Conditional batches sent per acknowledged move; null when not known (see the source). */
  readonly cas_attempts_per_move: number | null;
  /** Where that count comes from, or why there is none. */
  readonly cas_attempts_source: string;
  /** The store the ceilings below were measured on (postgres: its own floor, postgres-ceiling.ts). */
  readonly ceiling_store: 'cassandra' | 'postgres' | null;
  /** moves_per_s / raw_ceiling_per_s (bare conditional batches, distinct partitions). */
  readonly ceiling_ratio: number | null;
  /** Bare conditional batches/s on ONE partition from ONE writer (`hot`). */
  readonly raw_partition_ceiling_per_s: number | null;
  /** moves_per_s / raw_partition_ceiling_per_s. */
  readonly partition_ceiling_ratio: number | null;
}

/** What each store's floors were measured as, in the same run (null: not measured). */
export interface StoreCeilings {
  readonly store: 'cassandra' | 'postgres';
  /** Distinct partitions (one per writer), the run's concurrency. */
  readonly distinct: RawCeilingFigures | null;
  /** One partition, one writer. */
  readonly partition: RawCeilingFigures | null;
}

/** Which floors a scenario measures: the partition floor for `hot`, the distinct one otherwise. */
export const ceilingsOf = (scenario: Scenario) =>
  scenario === 'hot'
    ? ({ distinct: false, partition: true } as const)
    : ({ distinct: true, partition: false } as const);

export function casAttemptsPerMove(w: Pick<WorkloadResult, 'acked' | 'casAttempts'>) {
  const n = w.casAttempts.count;
  return n === null || w.acked === 0 ? null : Math.round((n / w.acked) * 1000) / 1000;
}

const ratio3 = (a: number, b: number | null) =>
  b === null || b === 0 ? null : Math.round((a / b) * 1000) / 1000;

interface CeilingTarget extends ScenarioFields {
  readonly moves_per_s: number;
  readonly raw_ceiling_per_s: number | null;
  readonly moves_per_s_vs_raw_ceiling: number | null;
}

/** The report with the ceilings of its store filled in (unchanged when none were measured). */
export function withCeilings<R extends CeilingTarget>(r: R, c: StoreCeilings | null): R {
  if (!c) return r;
  const distinct = c.distinct ? round2(c.distinct.perSecond) : null;
  const partition = c.partition ? round2(c.partition.perSecond) : null;
  return {
    ...r,
    ceiling_store: c.store,
    raw_ceiling_per_s: distinct,
    moves_per_s_vs_raw_ceiling: ratio3(r.moves_per_s, distinct),
    ceiling_ratio: ratio3(r.moves_per_s, distinct),
    raw_partition_ceiling_per_s: partition,
    partition_ceiling_ratio: ratio3(r.moves_per_s, partition),
  };
}
