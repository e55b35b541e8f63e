/**
 * docs/ops/dashboard.json parses as a Grafana dashboard, and every regrid_* series its panels
 * query is a family the service registers, so a renamed metric cannot leave a silently empty
 * panel behind.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { registry } from '../../../src/obs/registry.js';
import '../../../src/obs/metrics.js';
import '../../../src/obs/metrics-platform.js';
import '../../../src/obs/change-metrics.js';

const read = (p: string) => readFileSync(new URL(`../../../${p}`, import.meta.url), 'utf8');

/** A histogram's series carry _bucket/_sum/_count after the family name. */
const familyOf = (series: string) => series.replace(/_(bucket|sum|count)$/, '');

describe('docs/ops', () => {
  const dashboard = JSON.parse(read('docs/ops/dashboard.json')) as {
    title: string;
    panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
  };

  it('dashboard.json is a dashboard whose panels all have queries', () => {
    expect(dashboard.title).toBe('regrid');
    expect(dashboard.panels.length).toBeGreaterThan(10);
    for (const p of dashboard.panels) expect(p.targets.length, p.title).toBeGreaterThan(0);
  });

  it('queries only metric families that exist', async () => {
    const known = new Set((await registry.getMetricsAsJSON()).map((m) => m.name));
    const used = dashboard.panels.flatMap((p) =>
      p.targets.flatMap((t) => t.expr.match(/regrid_[a-z_]+/g) ?? []),
    );
    expect(used.length).toBeGreaterThan(20);
    for (const series of used) expect(known, series).toContain(familyOf(series));
  });

  it('alerts.yml names only families that exist', async () => {
    const known = new Set((await registry.getMetricsAsJSON()).map((m) => m.name));
    const used = read('docs/ops/alerts.yml').match(/regrid_[a-z_]+/g) ?? [];
    expect(used.length).toBeGreaterThan(5);
    for (const series of used) expect(known, series).toContain(familyOf(series));
  });
});
