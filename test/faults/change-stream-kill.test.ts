/**
 * The change stream across crashes (issue 26): service processes moving posts on a few grids are
 * SIGKILLed many times, each at a random moment of its run, and a new one started. Their Redis
 * traffic goes through a proxy that delays every chunk, so a kill often lands between a
 * commit and its publish (the versions then wait for the next writer of the grid or for the
 * sweeper). At the end, after a sweep, every committed version of every grid (1 … the version
 * Cassandra holds) must have exactly one event after dedupe, in version order, with no gaps; the
 * run also counts the raw duplicates (the publish script makes them 0 unless Redis lost its
 * watermarks) and how many versions the kills had left unpublished.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { shardOf, streamKeys } from '../../src/cache/change-stream.js';
import { sleep } from '../../tools/infra/process-utils.js';
import { ChangeLogStore } from '../../src/store/change-log-store.js';
import { consistencyOf, cqlOf } from '../../src/store/cassandra.js';
import { startSlowProxy, type SlowProxy } from '../integration/support/slow-proxy.js';
import { FAULTS_REDIS_PORT, faultsConfig } from './support/private-stores.js';
import { freshProfile, openInstance, seedGrid, type Instance } from './support/instance.js';

const GRIDS = 6;
const KILLS = 10;
const SHARDS = 4;
const SWEEP_AGE_MS = 1500;
const PREFIX = `regrid_faults_changes:${randomBytes(3).toString('hex')}:`;

let inst: Instance;
let proxy: SlowProxy;
let raw: Redis;
beforeAll(async () => {
  inst = await openInstance(
    faultsConfig({
      CHANGES_KEY_PREFIX: PREFIX,
      CHANGES_STREAM_SHARDS: String(SHARDS),
      CHANGES_SWEEP_INTERVAL_MS: '0',
      CHANGES_SWEEP_AGE_MS: String(SWEEP_AGE_MS),
    }),
  );
  proxy = await startSlowProxy({ host: '127.0.0.1', port: FAULTS_REDIS_PORT }, 8);
  raw = new Redis(`redis://127.0.0.1:${FAULTS_REDIS_PORT}`);
});
afterAll(async () => {
  raw?.disconnect();
  await proxy?.close();
  await inst?.close();
});

/** One service process: started, left writing for `runMs` after it is ready, then SIGKILLed. */
async function runAndKill(profiles: readonly bigint[], runMs: number): Promise<void> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/faults/support/change-writer.ts'],
    {
      env: {
        ...process.env,
        FAULT_REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
        FAULT_PREFIX: PREFIX,
        FAULT_PROFILES: profiles.join(','),
        FAULT_SWEEP_AGE_MS: String(SWEEP_AGE_MS),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('writer not ready after 60 s')), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`writer exited early (${code})`)));
  });
  await sleep(runMs);
  child.kill('SIGKILL'); // by its own PID: the process this test spawned
  await exited;
}

/** The versions a grid's events carry, in stream order. */
async function eventVersions(profileId: bigint): Promise<bigint[]> {
  const { stream } = streamKeys(PREFIX, shardOf(profileId, SHARDS));
  const entries = await raw.xrange(stream, '-', '+');
  return entries
    .map(([, f]) => JSON.parse(f[1]!) as { profile_id: string; version: string })
    .filter((e) => e.profile_id === profileId.toString())
    .map((e) => BigInt(e.version));
}

describe('the change stream when the service is killed between commits and publishes', () => {
  it('has exactly one event per committed version after dedupe, in order, with no gaps', async () => {
    const log = new ChangeLogStore(cqlOf(inst.client), consistencyOf(inst.config));
    const grids: bigint[] = [];
    for (let i = 0; i < GRIDS; i++) {
      const p = freshProfile();
      await seedGrid(inst, p, 10);
      grids.push(p);
    }
    let leftUnpublished = 0;
    let leftByLast = 0;
    for (let k = 0; k < KILLS; k++) {
      await runAndKill(grids, 400 + Math.floor(Math.random() * 1200));
      // What this kill left: committed versions above each grid's watermark. Counted once what
      // the killed process had in flight has landed: a Paxos round it left open is settled by
      // the SERIAL read (it may commit), and its last bytes through the delaying proxy arrive.
      await sleep(500);
      leftByLast = 0;
      for (const p of grids) {
        const { version } = await log.read(p, 'serial');
        const { watermarks } = streamKeys(PREFIX, shardOf(p, SHARDS));
        const wm = BigInt((await raw.hget(watermarks, p.toString())) ?? '0');
        leftUnpublished += Number(version - wm);
        leftByLast += Number(version - wm);
      }
    }
    // The restarted service's sweeper: once the marks are older than the sweep age.
    await sleep(SWEEP_AGE_MS + 200);
    const sweeper = inst.service.changes.startSweeper()!;
    const swept = await sweeper.sweep();
    await sweeper.stop();
    // No writer came after the last kill: only the sweeper published what it left.
    expect(swept).toBe(leftByLast);

    let versions = 0;
    let events = 0;
    let duplicates = 0;
    for (const p of grids) {
      const { version } = await log.read(p);
      const seen = await eventVersions(p);
      events += seen.length;
      const firsts: bigint[] = [];
      const known = new Set<bigint>();
      for (const v of seen) {
        if (known.has(v)) duplicates += 1;
        else firsts.push(v);
        known.add(v);
      }
      const expected = Array.from({ length: Number(version) }, (_, i) => BigInt(i + 1));
      expect(firsts).toEqual(expected); // one per version, in order, no gaps
      versions += Number(version);
    }
    console.log(
      `[change-stream kill] ${KILLS} SIGKILLs, ${GRIDS} grids: ${versions} committed versions, ` +
        `${events} events (${duplicates} duplicates), versions left unpublished by the kills ` +
        `(summed over kills): ${leftUnpublished}, left by the last kill and published by the final sweep: ${swept}`,
    );
    expect(versions).toBeGreaterThan(GRIDS * 5);
    expect(leftUnpublished).toBeGreaterThan(0); // the kills did land between commit and publish
  });
});
