/** Metric families of home regions (docs/regions.md "Home regions"), on the process registry. */
import { Counter } from 'prom-client';
import { registry } from './registry.js';

export const writesMisdirected = new Counter({
  name: 'regrid_writes_misdirected_total',
  help: 'Grid writes whose compare-and-set planner found the home region to be another one (nothing applied), by the home region',
  labelNames: ['home_region'] as const,
  registers: [registry],
});

export const writesForwarded = new Counter({
  name: 'regrid_writes_forwarded_total',
  help: "Misdirected writes sent to the home region's service, by outcome: answered (its answer passed through), no_peer (no URL for that region), failed (no answer in time)",
  labelNames: ['home_region', 'outcome'] as const,
  registers: [registry],
});

export const rehomes = new Counter({
  name: 'regrid_rehomes_total',
  help: 'Home regions set by a committed write, by why: claimed (a grid without one, by its first write here), set (the service route or `regrid region set-home`), failover (`regrid region failover`)',
  labelNames: ['why'] as const,
  registers: [registry],
});
