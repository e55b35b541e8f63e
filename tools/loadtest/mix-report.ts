/**
 * The mixed workload's lines in the human summary (--mix): each operation kind by outcome, and
 * the tombstones by cause (tombstone-causes.ts). Pure: report fields in, lines out.
 */
import type { DesignReport } from './report.js';

export function mixLines(r: DesignReport): string[] {
  if (!r.operations || !r.mix) return [];
  const asked = Object.entries(r.mix)
    .filter(([, w]) => w > 0)
    .map(([k, w]) => `${k} ${w}`)
    .join(', ');
  const lines = [
    `  mix          ${asked}; ${r.operations_per_s} operations/s acknowledged; ${r.posts_order_uncompared} post(s) on the final grids at a place the model cannot name (left out of the order check)`,
  ];
  for (const [kind, t] of Object.entries(r.operations)) {
    if (t.attempted === 0) continue;
    const codes = Object.entries(t.codes)
      .map(([c, k]) => `${c} ${k}`)
      .join(', ');
    lines.push(
      `    ${kind.padEnd(10)} ${t.attempted} sent: ${t.acked} acknowledged, ${t.rejected} refused, ${t.uncertain} unknown${codes ? ` (${codes})` : ''}`,
    );
  }
  if (r.tombstones_by_cause && r.tombstones_unexplained) {
    const by = (x: Readonly<Record<string, number>>) =>
      Object.entries(x)
        .map(([t, c]) => `${t} ${c}`)
        .join(', ');
    lines.push(
      `  by cause     delete: ${by(r.tombstones_by_cause.delete)}; archive: ${by(r.tombstones_by_cause.archive)}; no removal explains: ${by(r.tombstones_unexplained)}`,
    );
  }
  return lines;
}
