/**
 * Cassandra over TLS: a second private node, TLS-only (`client_encryption_options` with
 * `optional: false` and `require_client_auth`, keystores made with keytool by
 * scripts/make-test-certs.sh), launched by this project's provisioning under /tmp/regrid-tls on
 * ports of its own (CQL 19542), next to the suite's node (19142), and stopped at the end by the
 * PID in its pidfile. regrid connects with the CA and its client certificate (CASSANDRA_TLS_*),
 * migrates the keyspace, and a create, a move and a page go through the service over TLS; a
 * plain connection, no client certificate, a wrong CA and a wrong host name are each refused.
 */
import { readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCassandra } from '../../src/bootstrap.js';
import type { Config } from '../../src/config/config.js';
import { createCassandraClient } from '../../src/store/cassandra.js';
import { LOCAL_DC, nodeLayout, type NodeLayout } from '../../tools/infra/cassandra-files.js';
import { stopCassandra } from '../../tools/infra/cassandra-control.js';
import { probeCql } from '../../tools/infra/cql-probe.js';
import { launch, liveNodePid, waitUntilReady } from '../../tools/infra/embedded-cassandra.js';
import { makeTestCerts, type TestCerts } from '../integration/support/own-processes.js';
import { faultsConfig } from './support/private-stores.js';
import { call, freshProfile, openInstance, type Instance } from './support/instance.js';

/** The TLS node's own folder and ports: never the suite's node (19142) or the shared one. */
const NODE = {
  REGRID_HOME: '/tmp/regrid-tls',
  CASSANDRA_PORT: '19542',
  CASSANDRA_STORAGE_PORT: '17800',
  CASSANDRA_JMX_PORT: '17899',
  CASSANDRA_KEYSPACE: 'regrid_tls',
};
const log = (line: string) => console.log(`[cassandra tls] ${line}`);

let certs: TestCerts;
let layout: NodeLayout;
let inst: Instance | undefined;

/** The suite's config on the TLS node: TLS with the CA and the client certificate, then `env`. */
function tlsConfig(env: Record<string, string> = {}): Config {
  const settings: Record<string, string> = {
    ...NODE,
    CASSANDRA_TLS: 'true',
    CASSANDRA_TLS_CA_FILE: certs.ca,
    CASSANDRA_TLS_CERT_FILE: certs.clientCert,
    CASSANDRA_TLS_KEY_FILE: certs.clientKey,
    ...env,
  };
  for (const [k, v] of Object.entries(settings)) if (v === '') delete settings[k];
  return faultsConfig(settings);
}

/** Why a client with `config` cannot connect ('' when it can), in the driver's words. */
async function refusal(config: Config): Promise<string> {
  const client = createCassandraClient(config);
  try {
    await client.connect();
    await client.execute('SELECT release_version FROM system.local');
    return '';
  } catch (err) {
    const inner = (err as { innerErrors?: Record<string, Error> }).innerErrors ?? {};
    const why = Object.values(inner).map((e) => e.message);
    return [(err as Error).message, ...why].join(' | ');
  } finally {
    await client.shutdown().catch(() => undefined);
  }
}

beforeAll(async () => {
  certs = makeTestCerts();
  const config = tlsConfig();
  // A node an interrupted run left behind is ours (its pidfile names our folder): stop it first.
  if (liveNodePid(nodeLayout(config)) !== undefined) log((await stopCassandra(config)).detail);
  layout = {
    ...nodeLayout(config),
    clientEncryption: {
      keystore: certs.keystore,
      keystorePassword: certs.storePassword,
      truststore: certs.truststore,
      truststorePassword: certs.storePassword,
    },
  };
  const pid = await launch(layout, config, log);
  // Ready = CQL answers over TLS (the plain probe never would).
  const ep = {
    host: '127.0.0.1',
    port: layout.nativePort,
    localDataCenter: LOCAL_DC,
    sslOptions: {
      ca: readFileSync(certs.ca),
      cert: readFileSync(certs.clientCert),
      key: readFileSync(certs.clientKey),
      rejectUnauthorized: true,
    },
  };
  await waitUntilReady(layout, ep, pid, 480_000, log);
  // The keyspace, migrated over TLS by the product's own start-up path.
  const session = await openCassandra(config, log, 'apply', {
    contactPoints: ['127.0.0.1'],
    localDataCenter: LOCAL_DC,
    port: layout.nativePort,
    origin: 'external',
  });
  await session.client.shutdown();
});

afterAll(async () => {
  await inst?.close();
  // By the PID in the TLS node's own pidfile (checked to be a CassandraDaemon first).
  if (layout) log((await stopCassandra(tlsConfig(), 20_000)).detail);
  if (certs) rmSync(certs.dir, { recursive: true, force: true });
});

describe('Cassandra client encryption (CASSANDRA_TLS_*)', () => {
  it('is TLS-only: a plain connection is refused', async () => {
    const ep = { host: '127.0.0.1', port: layout.nativePort, localDataCenter: LOCAL_DC };
    expect(await probeCql(ep)).toBeUndefined();
    const why = await refusal(tlsConfig({ CASSANDRA_TLS: 'false', CASSANDRA_TLS_CA_FILE: '', CASSANDRA_TLS_CERT_FILE: '', CASSANDRA_TLS_KEY_FILE: '' })); // prettier-ignore
    log(`plain: ${why}`);
    expect(why).toMatch(/ECONNRESET|closed/);
  });

  it.each([
    ['no client certificate', { CASSANDRA_TLS_CERT_FILE: '', CASSANDRA_TLS_KEY_FILE: '' }, /certificate required|ECONNRESET/], // prettier-ignore
    ['a CA that did not sign the node', { CASSANDRA_TLS_CA_FILE: 'other' }, /certificate/i],
    ['a host name the certificate does not carry', { CASSANDRA_TLS_SERVERNAME: 'wrong.example' }, /wrong\.example|altnames/i], // prettier-ignore
  ])('refuses %s', async (what, change: Record<string, string>, said) => {
    const env = { ...change };
    if (env.CASSANDRA_TLS_CA_FILE === 'other') env.CASSANDRA_TLS_CA_FILE = certs.otherCa;
    const why = await refusal(tlsConfig(env));
    log(`${what}: ${why}`);
    expect(why).toMatch(said);
  });

  it('connects with the CA and client certificate; hostname verification off lets a wrong name through', async () => {
    expect(await refusal(tlsConfig())).toBe('');
    expect(await refusal(tlsConfig({ CASSANDRA_TLS_SERVERNAME: 'localhost' }))).toBe('');
    const off = {
      CASSANDRA_TLS_SERVERNAME: 'wrong.example',
      CASSANDRA_TLS_VERIFY_HOSTNAME: 'false',
    };
    expect(await refusal(tlsConfig(off))).toBe('');
  });

  it('a create, a move and a page go through the service over TLS', async () => {
    inst = await openInstance(tlsConfig());
    const me = freshProfile();
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await call(inst, 'POST', '/v1/me/posts', me, { body: { caption: `tls ${i}` } });
      expect(r.status).toBe(201);
      created.push(r.json.post.id);
    }
    const oldest = created[0]!;
    const moved = await call(inst, 'POST', '/v1/me/grid/moves', me, {
      body: { post_id: oldest, after: null },
    });
    expect(moved.status).toBe(200);
    const page = await call(inst, 'GET', `/v1/profiles/${me}/grid?limit=24`, me);
    expect(page.status).toBe(200);
    expect(page.json.items.map((x: { id: string }) => x.id)).toEqual([
      oldest,
      ...created.slice(1).reverse(),
    ]);
    expect(page.json.grid_version).toBe(moved.json.grid_version);
  });
});
