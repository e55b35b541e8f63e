/**
 * Where the Redis guard connects (cache/redis-client.ts): one server (REDIS_URL as ioredis takes
 * it), a Redis Cluster's seed nodes from a `redis+cluster://` URL or REDIS_CLUSTER_NODES, or the
 * primary that Redis Sentinel names (REDIS_SENTINELS + REDIS_SENTINEL_MASTER).
 * Pure parsing; the config schema (config/config.ts) rejects what this cannot read.
 */

/** The settings it reads (typed apart from Config: the schema refines itself with this). */
export interface RedisSettings {
  readonly REDIS_URL: string;
  readonly REDIS_CLUSTER_NODES: readonly string[];
  readonly REDIS_SENTINELS?: readonly string[];
  readonly REDIS_SENTINEL_MASTER?: string | undefined;
  readonly REDIS_SENTINEL_PASSWORD?: string | undefined;
}

type HostPort = { readonly host: string; readonly port: number };

/** `host:port` (an IPv6 host in brackets). */
const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[^\s:,/@\[\]]+):[0-9]{1,5}$/;
/** `redis[s]+cluster://[userinfo@]host:port,...[/0]`: scheme, userinfo, host list, db. */
const CLUSTER_URL = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^/?#]*)(?:\/([0-9]*))?$/;

/** Where the Redis guard connects (cache/redis-client.ts): one server, a cluster's seeds, or sentinels. */
export type RedisTarget =
  | { readonly kind: 'single'; readonly url: string }
  | {
      readonly kind: 'cluster';
      readonly nodes: ReadonlyArray<HostPort>;
      readonly username?: string;
      readonly password?: string;
      readonly tls: boolean;
    }
  | {
      readonly kind: 'sentinel';
      readonly sentinels: ReadonlyArray<HostPort>;
      /** The primary's name in the sentinels' configuration. */
      readonly name: string;
      readonly username?: string;
      readonly password?: string;
      readonly db: number;
      readonly tls: boolean;
      readonly sentinelPassword?: string;
    };

function hostPortOf(hp: string, what: string): HostPort {
  if (!HOST_PORT.test(hp)) throw new Error(`bad ${what} '${hp}' (expected host:port)`);
  const at = hp.lastIndexOf(':');
  return { host: hp.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(hp.slice(at + 1)) };
}

/** REDIS_SENTINELS: REDIS_URL lends credentials, database and TLS; the sentinels name the host. */
function sentinelTargetOf(config: RedisSettings, sentinels: readonly string[]): RedisTarget {
  const url = config.REDIS_URL;
  if (config.REDIS_CLUSTER_NODES.length > 0 || /^rediss?\+cluster:/.test(url)) {
    throw new Error('REDIS_SENTINELS and a Redis Cluster exclude each other');
  }
  if (!config.REDIS_SENTINEL_MASTER) throw new Error('REDIS_SENTINELS needs REDIS_SENTINEL_MASTER');
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`not a URL: '${url}'`);
  }
  const scheme = u.protocol.replace(/:$/, '');
  if (scheme !== 'redis' && scheme !== 'rediss') throw new Error(`bad scheme '${scheme}'`);
  const db = u.pathname.replace(/^\//, '') || '0';
  if (!/^[0-9]+$/.test(db)) throw new Error(`bad database '${db}'`);
  const username = decodeURIComponent(u.username);
  const password = decodeURIComponent(u.password);
  return {
    kind: 'sentinel',
    sentinels: sentinels.map((hp) => hostPortOf(hp, 'sentinel')),
    name: config.REDIS_SENTINEL_MASTER,
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
    db: Number(db),
    tls: scheme === 'rediss',
    ...(config.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: config.REDIS_SENTINEL_PASSWORD } : {}),
  };
}

/**
 * Reads REDIS_URL and REDIS_CLUSTER_NODES; throws a readable message on a bad combination.
 * A plain URL goes to ioredis untouched; with REDIS_CLUSTER_NODES it only lends its credentials
 * and TLS (`rediss`).
 */
export function redisTargetOf(config: RedisSettings): RedisTarget {
  const url = config.REDIS_URL;
  const nodes = config.REDIS_CLUSTER_NODES;
  const sentinels = config.REDIS_SENTINELS ?? [];
  if (sentinels.length > 0) return sentinelTargetOf(config, sentinels);
  if (config.REDIS_SENTINEL_MASTER) throw new Error('REDIS_SENTINEL_MASTER needs REDIS_SENTINELS');
  const m = CLUSTER_URL.exec(url);
  if (!m && /^rediss?\+cluster:/.test(url)) throw new Error(`bad cluster URL '${url}'`);
  if (!m && nodes.length === 0) return { kind: 'single', url };
  let scheme: string, userinfo: string, hosts: string, db: string;
  if (m) [, scheme = '', userinfo = '', hosts = '', db = ''] = m;
  else {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw new Error(`not a URL: '${url}'`);
    }
    [scheme, userinfo, hosts, db] = [
      u.protocol.replace(/:$/, ''),
      u.username || u.password ? `${u.username}:${u.password}` : '',
      '',
      u.pathname.replace(/^\//, ''),
    ];
  }
  if (scheme !== 'redis' && scheme !== 'rediss') throw new Error(`bad scheme '${scheme}'`);
  // A cluster has only database 0: a `/4` would silently share keys with every other user.
  if (db && db !== '0') throw new Error(`Redis Cluster has no database ${db}`);
  const seeds = nodes.length > 0 ? nodes : hosts.split(',').filter(Boolean);
  if (seeds.length === 0) throw new Error('a cluster needs at least one host:port');
  const [username, password] = userinfo.split(':').map(decodeURIComponent);
  return {
    kind: 'cluster',
    nodes: seeds.map((hp) => hostPortOf(hp, 'cluster node')),
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
    tls: scheme === 'rediss',
  };
}

/** What is wrong with the settings, or undefined when they name a target. */
export function redisTargetProblem(config: RedisSettings): string | undefined {
  try {
    redisTargetOf(config);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}
