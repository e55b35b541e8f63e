/**
 * An embedded regrid (createRegrid, src/embed.ts) runs the change stream's sweeper as the server
 * does: versions a writer committed and died before publishing are published by the embedding
 * host's instance (close() stops it). Before, only src/server.ts started one, so a
 * fleet of embedded instances left such versions unpublished until a later write of the profile.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createRegrid } from '../../../src/index.js';
import { SimulatedCrash } from '../../../src/service/idempotency/idempotency-ticket.js';
import { openPerFile } from '../support/per-file.js';
import { TEST_KEYSPACE } from '../support/stores.js';
import {
  openChanges,
  randomProfile,
  seedGrid,
  versionsOf,
  type ChangesHarness,
} from './harness.js';

let h: ChangesHarness;
openPerFile(openChanges, (opened) => (h = opened));

describe('an embedded instance', () => {
  it('sweeps what a writer that died after its commit never published', async () => {
    const me = randomProfile();
    let crash = false;
    const dying = await h.serviceWith(
      {},
      {
        afterCas: () => {
          if (crash) throw new SimulatedCrash('after the compare-and-set');
        },
      },
    );
    const ids = await seedGrid(h, dying, me, 3); // v1, published
    await h.waitEvents(me, 1);
    crash = true;
    await expect(dying.move(me, ids[2]!, null)).rejects.toThrow(/simulated crash/); // v2
    expect(versionsOf(await h.events(me))).toEqual([1]);

    const redis = new Redis(h.config.REDIS_URL, { lazyConnect: true });
    await redis.connect();
    const regrid = await createRegrid({
      cassandra: h.client,
      redis,
      config: {
        AUTH_JWT_SECRET: 'embed-sweeper-tests-jwt-secret-0123456789',
        CASSANDRA_KEYSPACE: TEST_KEYSPACE,
        CHANGES_KEY_PREFIX: h.config.CHANGES_KEY_PREFIX,
        CHANGES_STREAM_SHARDS: String(h.config.CHANGES_STREAM_SHARDS),
        CHANGES_SWEEP_INTERVAL_MS: '100',
        CHANGES_SWEEP_AGE_MS: '300',
      },
    });
    try {
      const events = await h.waitEvents(me, 2, 10_000);
      expect(versionsOf(events)).toEqual([1, 2]);
    } finally {
      await regrid.close();
      redis.disconnect();
    }
  });
});
