/**
 * CASSANDRA_REPLICATION (config.ts): `SimpleStrategy:1` or `NetworkTopologyStrategy:dc1=3,dc2=3`,
 * parsed into the map the migration runner renders into CREATE KEYSPACE (store/migrations.ts).
 */
import { z } from 'zod';

export const Replication = z
  .string()
  .default('SimpleStrategy:1')
  .transform((s, ctx) => {
    const [cls, rest = ''] = s.split(':');
    if (cls === 'SimpleStrategy') {
      const rf = Number(rest || '1');
      if (!Number.isInteger(rf) || rf < 1) ctx.addIssue({ code: 'custom', message: 'bad RF' });
      return { class: 'SimpleStrategy', replication_factor: rf } as Record<string, string | number>;
    }
    if (cls === 'NetworkTopologyStrategy') {
      const out: Record<string, string | number> = { class: 'NetworkTopologyStrategy' };
      for (const part of rest.split(',').filter(Boolean)) {
        const [dc, rf] = part.split('=');
        if (!dc || !rf || !/^[0-9]+$/.test(rf)) {
          ctx.addIssue({ code: 'custom', message: `bad replication entry '${part}'` });
          continue;
        }
        out[dc] = Number(rf);
      }
      return out;
    }
    ctx.addIssue({ code: 'custom', message: `unknown replication strategy '${cls}'` });
    return z.NEVER;
  });
