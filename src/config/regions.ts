/**
 * Regions (src/config/config.ts; docs/regions.md "Home regions"): which region this process is, whether
 * grids have a home region and what a write arriving outside it does, where the other regions'
 * services are, and the serial consistency of a re-home.
 */
import { z } from 'zod';
import { intFrom } from './kinds.js';

/** `dc1=http://10.0.0.1:8080,dc2=http://…` → region → base URL (no trailing slash). */
export const RegionPeers = z
  .string()
  .default('')
  .transform((s, ctx) => {
    const out: Record<string, string> = {};
    for (const part of s
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean)) {
      const at = part.indexOf('=');
      const region = part.slice(0, at).trim();
      const url = part.slice(at + 1).trim();
      if (at <= 0 || !/^https?:\/\/[^\s]+$/.test(url)) {
        ctx.addIssue({
          code: 'custom',
          message: `bad peer entry '${part}' (want region=http://…)`,
        });
        continue;
      }
      out[region] = url.replace(/\/+$/, '');
    }
    return out;
  });

export const RegionsConfig = {
  REGRID_REGION: z.string().min(1).optional().meta({
    description:
      "this process's region, the name home regions are kept under; unset = `CASSANDRA_LOCAL_DC`",
    unset: 'CASSANDRA_LOCAL_DC',
  }),
  REGRID_HOME_REGIONS: z
    .enum(['off', 'refuse', 'forward'])
    .default('off')
    .describe(
      'home regions: `off` = none (one region writes every grid, as before); `refuse` = a write ' +
        'to a grid homed elsewhere answers 421 `wrong_region` naming `home_region`; `forward` = ' +
        "it is sent to the home region's service (`REGRID_REGION_PEERS`) " +
        '([regions.md](regions.md#home-regions))',
    ),
  REGRID_REGION_PEERS: RegionPeers.meta({
    description:
      "each region's service base URL, for `forward` (a write whose home region has no entry " +
      'here answers 503 with Retry-After)',
    allowed: '`dc1=http://…,dc2=http://…`',
  }),
};

/** Constants, not read from the environment (config.ts `loadConfig`'s second argument sets them). */
export const RegionsTuning = {
  REGRID_FORWARD_TIMEOUT_MS: intFrom(5_000, 100, 60_000)
    .describe("how long a forwarded write waits for the home region's answer before 503")
    .meta({ why: 'a bound on one hop; tests turn it' }),
  REGRID_REHOME_SERIAL: z
    .enum(['serial', 'localSerial'])
    .default('serial')
    .describe(
      "Paxos consistency of a batch that sets a grid's home region (a claim by the first write, " +
        'a re-home): `serial` spans every region; `regrid region failover` uses `localSerial` ' +
        'itself (the dead region cannot answer)',
    )
    .meta({
      why: 'safe only as `serial` with at most 2 replicas per region (docs/regions.md); tests turn it',
    }),
};

export type RegionMode = 'off' | 'refuse' | 'forward';

/** What the write line needs to know (service/write-line/home-region.ts); absent = homes off. */
export interface RegionPolicy {
  readonly region: string;
  readonly mode: Exclude<RegionMode, 'off'>;
}

export function regionPolicyOf(config: {
  REGRID_REGION?: string | undefined;
  REGRID_HOME_REGIONS: RegionMode;
  CASSANDRA_LOCAL_DC: string;
}): RegionPolicy | undefined {
  if (config.REGRID_HOME_REGIONS === 'off') return undefined;
  return {
    region: config.REGRID_REGION ?? config.CASSANDRA_LOCAL_DC,
    mode: config.REGRID_HOME_REGIONS,
  };
}
