/**
 * The cache over TLS: a private TLS-only `redis-server` (`--port 0 --tls-port`, client
 * certificates required, certificates from scripts/make-test-certs.sh), stopped by PID. regrid
 * connects with the CA and its client certificate (REDIS_TLS_*) and the service's moves and pages
 * go through that cache; a plain connection, a missing client certificate, a wrong CA and a wrong
 * host name are each refused.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisGuard } from '../../../src/cache/redis.js';
import type { RedisGuard } from '../../../src/cache/redis.js';
import { testConfig } from '../support/stores.js';
import { freshProfile, openStores, seedPosts } from './harness.js';
import type { Stores } from './harness.js';
import { allPages, move, serviceWith } from './service-api.js';
import {
  freePort,
  makeTestCerts,
  spawnOwn,
  until,
  type OwnProcess,
  type TestCerts,
} from '../support/own-processes.js';

let certs: TestCerts;
let port: number;
let server: OwnProcess;
let s: Stores;
const guards: RedisGuard[] = [];

beforeAll(async () => {
  certs = makeTestCerts();
  port = await freePort();
  server = spawnOwn('redis-server', [
    ...['--port', '0', '--tls-port', String(port), '--bind', '127.0.0.1'],
    ...['--tls-cert-file', certs.serverCert, '--tls-key-file', certs.serverKey],
    ...['--tls-ca-cert-file', certs.ca, '--tls-auth-clients', 'yes'],
    ...['--save', '', '--appendonly', 'no', '--dir', certs.dir],
  ]);
  s = await openStores();
  const probe = guardWith({});
  await until('the TLS redis-server answers', async () => (await probe.waitReady(200)) === true);
});

afterAll(async () => {
  for (const g of guards) await g.close();
  await s?.close();
  await server?.kill();
  if (certs) rmSync(certs.dir, { recursive: true, force: true });
});

/**
 * A guard on the TLS server with the CA and client certificate, then `env` on top (a value of
 * '' leaves that setting unset), parsed like the server's own configuration.
 */
function guardWith(env: Record<string, string>, host = '127.0.0.1') {
  const settings: Record<string, string> = {
    REDIS_URL: `rediss://${host}:${port}`,
    REDIS_TLS_CA_FILE: certs.ca,
    REDIS_TLS_CERT_FILE: certs.clientCert,
    REDIS_TLS_KEY_FILE: certs.clientKey,
    ...env,
  };
  for (const [k, v] of Object.entries(settings)) if (v === '') delete settings[k];
  const guard = createRedisGuard(testConfig(settings), { log: () => {} });
  guards.push(guard);
  return guard;
}

/** The errors a guard's connection reports (what the TLS layer said), collected. */
function errorsOf(guard: RedisGuard): string[] {
  const seen: string[] = [];
  guard.client.on('error', (err: Error) => seen.push(err.message));
  return seen;
}

describe('Redis over TLS (rediss://, REDIS_TLS_*)', () => {
  it('connects with the CA and the client certificate, by IP address and by name', async () => {
    for (const host of ['127.0.0.1', 'localhost']) {
      const guard = guardWith({}, host);
      expect(await guard.waitReady(5000)).toBe(true);
      expect(await guard.run((c) => c.set('tls:probe', host))).toBe('OK');
      expect(await guard.run((c) => c.get('tls:probe'))).toBe(host);
      expect(guard.health()).toBe('ok');
    }
  });

  it('moves and pages go through the TLS cache, and equal the uncached service', async () => {
    const guard = guardWith({});
    expect(await guard.waitReady(5000)).toBe(true);
    const cached = serviceWith(s, s.config, guard);
    const plain = serviceWith(s, s.config);
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 40);
    expect(await allPages(cached, p, 24)).toEqual(await allPages(plain, p, 24));
    expect((await move(cached, p, posts[5]!, null)).status).toBe(200);
    expect((await move(cached, p, posts[30]!, posts[10]!)).status).toBe(200);
    const pages = await allPages(cached, p, 24);
    expect(pages).toEqual(await allPages(plain, p, 24));
    expect(pages[0]!.ids[0]).toBe(String(posts[5]));
    await allPages(cached, p, 24);
    const stats = cached.service.caches!.grid.stats;
    expect(stats.hits).toBeGreaterThan(0);
    expect(stats.directReads).toBe(0);
    // The summary the cache wrote is on the TLS server.
    expect(await guard.run((c) => c.exists(`profile:{${p}}`))).toBe(1);
  });

  const noTls = { REDIS_TLS_CA_FILE: '', REDIS_TLS_CERT_FILE: '', REDIS_TLS_KEY_FILE: '' };
  it.each([
    ['a plain connection to the TLS port', { ...noTls, REDIS_URL: 'plain' }, /ECONNRESET|closed/],
    [
      'no client certificate',
      { REDIS_TLS_CERT_FILE: '', REDIS_TLS_KEY_FILE: '' },
      /ECONNRESET|certificate/,
    ],
    ['a CA that did not sign the server', { REDIS_TLS_CA_FILE: 'other' }, /certificate/i],
    ['a host name the certificate does not carry', { REDIS_TLS_SERVERNAME: 'wrong.example' }, /wrong\.example|altnames/i], // prettier-ignore
  ])('refuses %s', async (what, change: Record<string, string>, said) => {
    const env = { ...change };
    if (env.REDIS_URL === 'plain') env.REDIS_URL = `redis://127.0.0.1:${port}`;
    if (env.REDIS_TLS_CA_FILE === 'other') env.REDIS_TLS_CA_FILE = certs.otherCa;
    const guard = guardWith(env);
    const errors = errorsOf(guard);
    expect(await guard.waitReady(1500)).toBe(false);
    expect(await guard.run((c) => c.get('tls:probe'))).toBeUndefined();
    expect(guard.health()).toBe('degraded');
    console.log(`[redis tls] ${what}: ${errors[0] ?? '(no error event)'}`);
    expect(errors.join('\n')).toMatch(said);
  });

  it('with hostname verification off, the wrong name is let through (the chain still counts)', async () => {
    const off = guardWith({ REDIS_TLS_SERVERNAME: 'wrong.example', REDIS_TLS_VERIFY_HOSTNAME: 'false' }); // prettier-ignore
    expect(await off.waitReady(5000)).toBe(true);
    const wrongCa = guardWith({ REDIS_TLS_CA_FILE: certs.otherCa, REDIS_TLS_VERIFY_HOSTNAME: 'false' }); // prettier-ignore
    expect(await wrongCa.waitReady(1500)).toBe(false);
  });
});
