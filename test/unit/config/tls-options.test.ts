/**
 * TLS settings to Node `tls.connect` options (src/tls-options.ts). What they do against real
 * servers: test/faults/cassandra-tls.test.ts and test/integration/cache/redis-tls.test.ts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tlsOptionsOf } from '../../../src/tls-options.js';

describe('tlsOptionsOf', () => {
  const dir = mkdtempSync(join(tmpdir(), 'regrid-tls-unit-'));
  const ca = join(dir, 'ca.pem');
  writeFileSync(ca, 'CA BYTES');

  it('always verifies the chain; reads the files; names the setting of one it cannot read', () => {
    const opts = tlsOptionsOf({ caFile: ca, verifyHostname: true }, 'REDIS_TLS');
    expect(opts.rejectUnauthorized).toBe(true);
    expect(String(opts.ca)).toBe('CA BYTES');
    expect(opts.checkServerIdentity).toBeUndefined();
    expect(() =>
      tlsOptionsOf({ certFile: join(dir, 'nope.pem'), verifyHostname: true }, 'CASSANDRA_TLS'),
    ).toThrow(/CASSANDRA_TLS_CERT_FILE: cannot read '.*nope\.pem' \(ENOENT\)/);
  });

  it('hostname verification off skips only the name check; a server name replaces the host', () => {
    const off = tlsOptionsOf({ verifyHostname: false }, 'REDIS_TLS');
    expect(off.rejectUnauthorized).toBe(true);
    expect(off.checkServerIdentity?.('wrong.example', {} as never)).toBeUndefined();
    expect(tlsOptionsOf({ verifyHostname: true, serverName: 'db' }, 'X').servername).toBe('db');
  });
});
