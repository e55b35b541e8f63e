/**
 * What a production server refuses to start without (config.ts `missingForProduction`, checked by
 * bootstrap.ts `checkProductionSettings`): every unset one is named, in one message, and
 * development is never held to it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkProductionSettings } from '../../../src/bootstrap.js';
import { loadConfig, missingForProduction } from '../../../src/config/config.js';

const REQUIRED = ['CASSANDRA_CONTACT_POINTS', 'REDIS_URL', 'AUTH_JWT_SECRET'] as const;
const VALUES = {
  CASSANDRA_CONTACT_POINTS: '10.0.0.1,10.0.0.2',
  REDIS_URL: 'none',
  AUTH_JWT_SECRET: 'a-production-secret-0123456789',
};

describe('missingForProduction', () => {
  it('names exactly the unset ones, in a fixed order; blank counts as unset', () => {
    fc.assert(
      fc.property(fc.subarray([...REQUIRED]), fc.boolean(), (set, blankOthers) => {
        const env: Record<string, string> = {};
        for (const name of REQUIRED) {
          if (set.includes(name)) env[name] = VALUES[name];
          else if (blankOthers) env[name] = '  ';
        }
        expect(missingForProduction(env)).toEqual(REQUIRED.filter((n) => !set.includes(n)));
      }),
    );
  });

  it('takes Redis Cluster seeds or sentinels in place of REDIS_URL', () => {
    expect(missingForProduction({ REDIS_CLUSTER_NODES: 'r1:6379' })).toEqual([
      'CASSANDRA_CONTACT_POINTS',
      'AUTH_JWT_SECRET',
    ]);
    expect(missingForProduction({ REDIS_SENTINELS: 's1:26379' })).toEqual([
      'CASSANDRA_CONTACT_POINTS',
      'AUTH_JWT_SECRET',
    ]);
  });
});

describe('checkProductionSettings', () => {
  it('throws one message naming every missing variable in production', () => {
    const env = { NODE_ENV: 'production', REDIS_URL: 'redis://cache:6379' };
    expect(() => checkProductionSettings(loadConfig(env), env)).toThrow(
      /^NODE_ENV=production needs CASSANDRA_CONTACT_POINTS, AUTH_JWT_SECRET: /,
    );
  });

  it('passes a complete production environment and any development one', () => {
    const prod = { NODE_ENV: 'production', ...VALUES };
    expect(() => checkProductionSettings(loadConfig(prod), prod)).not.toThrow();
    expect(() => checkProductionSettings(loadConfig({}), {})).not.toThrow();
  });
});
