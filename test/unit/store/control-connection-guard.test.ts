/**
 * The guard on cassandra-driver 4.10's control connection (src/store/cassandra.ts): when a
 * refresh ends with no host or no connection (the socket closed meanwhile), the driver's
 * `_setHealthListeners` would throw from a timer, an unhandled rejection that ends the process.
 * Guarded, it throws nothing and refreshes again shortly; with both present the driver's own
 * method runs. On the real driver's objects (no connection is opened).
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { createCassandraClient } from '../../../src/store/cassandra.js';

interface Internals {
  _setHealthListeners: (host: unknown, connection: unknown) => void;
  _refresh: () => Promise<void>;
}

describe('control connection guard', () => {
  it('a refresh that lost its host or connection refreshes again instead of throwing', async () => {
    const client = createCassandraClient(loadConfig({}));
    const cc = (client as unknown as { controlConnection: Internals }).controlConnection;
    let refreshes = 0;
    cc._refresh = async () => {
      refreshes += 1;
    };
    expect(() => cc._setHealthListeners(null, { once: () => undefined })).not.toThrow();
    expect(() => cc._setHealthListeners({ once: () => undefined }, null)).not.toThrow();
    await new Promise((r) => setTimeout(r, 250));
    expect(refreshes).toBe(2);
    // With both present, the driver's own method runs (it registers its three listeners).
    const registered: string[] = [];
    const emitter = { once: (event: string) => void registered.push(event) };
    cc._setHealthListeners(emitter, emitter);
    expect(registered.sort()).toEqual(['down', 'ignore', 'socketClose']);
    await client.shutdown();
  });
});
