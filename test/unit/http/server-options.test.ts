/**
 * The Node server's options from the configuration (src/http/server-options.ts); the timeouts
 * themselves, on real sockets: test/integration/api/client-stalls.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { serverOptionsOf } from '../../../src/http/server-options.js';

const of = (env: Record<string, string>) =>
  serverOptionsOf(loadConfig({}, { NODE_ENV: 'test', ...env }));

describe('server options', () => {
  it('the defaults: 10 s headers, 30 s request, 65 s keep-alive, checked every second', () => {
    expect(of({ PORT: '9090', HOST: '0.0.0.0' })).toEqual({
      port: 9090,
      hostname: '0.0.0.0',
      serverOptions: {
        headersTimeout: 10_000,
        requestTimeout: 30_000,
        keepAliveTimeout: 65_000,
        connectionsCheckingInterval: 1_000,
      },
    });
  });

  it('a request timeout below the headers timeout is raised to it (Node refuses it otherwise)', () => {
    const o = of({ HTTP_HEADERS_TIMEOUT_MS: '8000', HTTP_REQUEST_TIMEOUT_MS: '2000' });
    expect(o.serverOptions.requestTimeout).toBe(8_000);
  });

  it('short timeouts are checked at a quarter of the headers timeout', () => {
    const o = of({ HTTP_HEADERS_TIMEOUT_MS: '600' });
    expect(o.serverOptions.connectionsCheckingInterval).toBe(150);
  });

  it('a bad value stops the start', () => {
    expect(() => of({ BODY_TIMEOUT_MS: 'soon' })).toThrow(/BODY_TIMEOUT_MS/);
  });
});
