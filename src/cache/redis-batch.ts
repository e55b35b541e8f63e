/**
 * Commands over keys in many slots: post bodies (`post:<id>`, spread freely) and many profiles'
 * summaries at once (repairs). On a single Redis: one MGET / one UNLINK / one pipeline, as ever.
 * On a Redis Cluster a multi-key command must stay inside one slot (CROSSSLOT otherwise) and
 * ioredis refuses a pipeline that spans masters, so each key (or same-slot group) gets a command
 * of its own; the client's auto-pipelining (redis-client.ts) sends those issued in one tick as
 * one pipeline per master, in parallel: one round trip per master, not one per key.
 *
 * All or nothing: one failed key rejects the whole call, so the guard counts the failure and the
 * caller takes its Cassandra path for the whole set (a dead master costs its share, not a hang).
 */
import type { Redis } from 'ioredis';
import { isCluster } from './redis-client.js';
import type { RedisClient } from './redis-client.js';

/** Values of `keys`, in order (null = missing). */
export function getMany(c: RedisClient, keys: readonly string[]): Promise<Array<string | null>> {
  if (keys.length === 0) return Promise.resolve([]);
  if (!isCluster(c)) return c.mget([...keys]);
  return Promise.all(keys.map((k) => c.get(k)));
}

/** SET key value EX ttlS for each entry; resolves to the number set (never undefined: guard). */
export async function setEachEx(
  c: RedisClient,
  entries: ReadonlyArray<readonly [string, string]>,
  ttlS: number,
): Promise<number> {
  if (entries.length === 0) return 0;
  if (isCluster(c)) {
    await Promise.all(entries.map(([k, v]) => c.set(k, v, 'EX', ttlS)));
    return entries.length;
  }
  const batch = c.pipeline();
  for (const [k, v] of entries) batch.set(k, v, 'EX', ttlS);
  const replies = await batch.exec();
  const failed = replies?.find(([err]) => err)?.[0];
  if (failed) throw failed;
  return entries.length;
}

/**
 * Unlinks every key of `groups`; resolves to how many existed. The keys of one group must share
 * a slot (one profile's, by its hash tag); different groups may live anywhere.
 */
export async function unlinkGroups(
  c: RedisClient,
  groups: ReadonlyArray<readonly string[]>,
): Promise<number> {
  const all = groups.flat();
  if (all.length === 0) return 0;
  if (!isCluster(c)) return c.unlink(...all);
  const counts = await Promise.all(groups.filter((g) => g.length > 0).map((g) => c.unlink(...g)));
  return counts.reduce((a, b) => a + b, 0);
}

const SLOTS = 16384;

/**
 * Where a SCAN must run to see every key: the server itself, or each master of a cluster. Throws
 * when some slot's master is not among them (down, and dropped by the client): a sweep that
 * skipped it would report keys deleted that were not.
 */
export function scanTargets(c: RedisClient): Redis[] {
  if (!isCluster(c)) return [c];
  const masters = c.nodes('master');
  const reachable = new Set(masters.map((n) => `${n.options.host}:${n.options.port}`));
  for (let slot = 0; slot < SLOTS; slot++) {
    if (!reachable.has(c.slots[slot]?.[0] ?? '')) throw new Error(`slot ${slot}: no master`);
  }
  return masters;
}
