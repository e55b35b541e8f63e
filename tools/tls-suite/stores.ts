/**
 * The TLS-only stores of `npm run test:integration:tls` (tools/test-over-tls.ts): fresh test
 * certificates (scripts/make-test-certs.sh), a private Cassandra node whose native port takes
 * TLS only (`client_encryption_options` with `optional: false` and client certificates required,
 * tools/infra/cassandra-files.ts) under its own REGRID_HOME and ports, and a redis-server with
 * no plain port (`--port 0 --tls-port`, client certificates required). Each is checked to refuse
 * plain text before the suite runs, and stopped by its PID afterwards.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createRedisGuard } from '../../src/cache/redis.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import { stopCassandra } from '../infra/cassandra-control.js';
import { LOCAL_DC, nodeLayout } from '../infra/cassandra-files.js';
import { probeCql } from '../infra/cql-probe.js';
import { launch, liveNodePid, waitUntilReady } from '../infra/embedded-cassandra.js';
import { tcpOpen } from '../infra/process-utils.js';
import { redisAnswers } from '../infra/redis-local.js';

/** Never the shared node (9042/7000/7199), the fault suite's (19142) or its TLS test's (19542). */
export const TLS_NODE = {
  REGRID_HOME: '/tmp/regrid-tlssuite',
  CASSANDRA_PORT: '19642',
  CASSANDRA_STORAGE_PORT: '17900',
  CASSANDRA_JMX_PORT: '17999',
};
export const TLS_REDIS_PORT = 16390;

export interface TlsStores {
  /** The settings that point the integration suite at these stores, over TLS. */
  readonly env: Record<string, string>;
  readonly cassandraPid: number;
  readonly redisPid: number;
  stop(): Promise<void>;
}

/** The layout config of the private node (only its folder and ports). */
const nodeConfig = (): Config => {
  // The storage and JMX ports are constants (docs/configuration.md "Constants"): set in code.
  const { CASSANDRA_STORAGE_PORT, CASSANDRA_JMX_PORT, ...env } = TLS_NODE;
  return loadConfig({ NODE_ENV: 'test', ...env }, { CASSANDRA_STORAGE_PORT, CASSANDRA_JMX_PORT });
};

function makeCerts(dir: string, log: (l: string) => void) {
  rmSync(dir, { recursive: true, force: true });
  const res = spawnSync('bash', [resolve('scripts/make-test-certs.sh'), dir], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (res.status !== 0) throw new Error(`make-test-certs.sh failed: ${res.stdout}${res.stderr}`);
  log(res.stdout.trim());
  const at = (f: string) => join(dir, f);
  return { at, password: 'regrid-test' };
}

export async function startTlsStores(log: (l: string) => void): Promise<TlsStores> {
  const { at, password } = makeCerts(join(TLS_NODE.REGRID_HOME, 'certs'), log);
  const env: Record<string, string> = {
    CASSANDRA_CONTACT_POINTS: '127.0.0.1',
    CASSANDRA_PORT: TLS_NODE.CASSANDRA_PORT,
    CASSANDRA_LOCAL_DC: LOCAL_DC,
    CASSANDRA_TLS: 'true',
    CASSANDRA_TLS_CA_FILE: at('ca.pem'),
    CASSANDRA_TLS_CERT_FILE: at('client.pem'),
    CASSANDRA_TLS_KEY_FILE: at('client.key'),
    REDIS_URL: `rediss://127.0.0.1:${TLS_REDIS_PORT}`,
    REDIS_TLS_CA_FILE: at('ca.pem'),
    REDIS_TLS_CERT_FILE: at('client.pem'),
    REDIS_TLS_KEY_FILE: at('client.key'),
  };

  if (await tcpOpen('127.0.0.1', TLS_REDIS_PORT, 300)) {
    throw new Error(`127.0.0.1:${TLS_REDIS_PORT} (the TLS redis-server's port) is already in use`);
  }
  const config = nodeConfig();
  // A node an interrupted run left behind is ours (its pidfile is in our folder): stop it first.
  if (liveNodePid(nodeLayout(config)) !== undefined) log((await stopCassandra(config)).detail);
  const layout = {
    ...nodeLayout(config),
    clientEncryption: {
      keystore: at('server-keystore.jks'),
      keystorePassword: password,
      truststore: at('truststore.jks'),
      truststorePassword: password,
    },
  };
  const cassandraPid = await launch(layout, config, log);
  let redis: ChildProcess | undefined;
  const stop = async () => {
    if (redis && redis.exitCode === null && redis.signalCode === null) {
      const exited = new Promise((ok) => redis!.once('exit', ok));
      process.kill(redis.pid!, 'SIGTERM');
      await exited;
      log(`stopped redis-server pid ${redis.pid}`);
    }
    // By the PID in the node's own pidfile (checked to be a CassandraDaemon first).
    log(`cassandra: ${(await stopCassandra(config, 30_000)).detail}`);
  };
  try {
    const tls = {
      ca: readFileSync(at('ca.pem')),
      cert: readFileSync(at('client.pem')),
      key: readFileSync(at('client.key')),
      rejectUnauthorized: true,
    };
    const ep = { host: '127.0.0.1', port: layout.nativePort, localDataCenter: LOCAL_DC };
    await waitUntilReady(layout, { ...ep, sslOptions: tls }, cassandraPid, 600_000, log);
    if ((await probeCql(ep)) !== undefined) {
      throw new Error(`plain CQL is answered on ${ep.port}: the node is not TLS-only`);
    }
    log(`cassandra pid ${cassandraPid}: TLS on 127.0.0.1:${ep.port}, plain CQL refused`);

    redis = spawn(
      'redis-server',
      [
        ...['--port', '0', '--tls-port', String(TLS_REDIS_PORT), '--bind', '127.0.0.1'],
        ...['--tls-cert-file', at('server.pem'), '--tls-key-file', at('server.key')],
        ...['--tls-ca-cert-file', at('ca.pem'), '--tls-auth-clients', 'yes'],
        ...['--save', '', '--appendonly', 'no', '--dir', join(TLS_NODE.REGRID_HOME, 'certs')],
      ],
      { stdio: 'ignore' },
    );
    const guard = createRedisGuard(loadConfig({ NODE_ENV: 'test', ...env }), { log: () => {} });
    const ready = await guard.waitReady(15_000);
    await guard.close();
    if (!ready) throw new Error(`redis-server (pid ${redis.pid}) does not answer over TLS`);
    if (await redisAnswers('127.0.0.1', TLS_REDIS_PORT)) {
      throw new Error(`plain PING is answered on ${TLS_REDIS_PORT}: Redis is not TLS-only`);
    }
    log(`redis-server pid ${redis.pid}: TLS on 127.0.0.1:${TLS_REDIS_PORT}, plain refused`);
    return { env, cassandraPid, redisPid: redis.pid!, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
