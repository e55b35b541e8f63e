/**
 * A loopback TCP proxy in front of the shared Cassandra node, so a test can make "the node"
 * stall or die for ONE client without touching the node other people use:
 *   - `stall()`: stop moving bytes both ways, sockets stay open. To the driver this is exactly a
 *     SIGSTOPped node: writes are accepted by the kernel, nothing ever answers.
 *   - `kill()`: reset every connection and stop listening (connection refused), as after kill -9.
 *   - `revive()`: listen again on the same port (the node is back).
 */
import net from 'node:net';

export interface CqlProxy {
  readonly port: number;
  stall(): void;
  resume(): void;
  swallowAnswers(): void;
  kill(): Promise<void>;
  revive(): Promise<void>;
  close(): Promise<void>;
}

export async function startCqlProxy(upstream: { host: string; port: number }): Promise<CqlProxy> {
  const pairs = new Set<{ client: net.Socket; server: net.Socket }>();
  let stalled = false;
  let swallowing = false;
  const swallow = ({ client, server }: { client: net.Socket; server: net.Socket }) => {
    server.unpipe(client);
    server.on('data', () => undefined); // read and dropped: flowing, so the node is not held up
  };

  const onConnection = (client: net.Socket) => {
    const server = net.connect(upstream.port, upstream.host);
    const pair = { client, server };
    pairs.add(pair);
    if (stalled) {
      client.pause();
      server.pause();
    }
    client.pipe(server);
    server.pipe(client);
    if (swallowing) swallow(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      server.destroy();
    };
    client.on('error', drop).on('close', drop);
    server.on('error', drop).on('close', drop);
  };

  let listener = net.createServer(onConnection);
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      listener.once('error', reject);
      listener.listen(port, '127.0.0.1', () => {
        listener.off('error', reject);
        resolve((listener.address() as net.AddressInfo).port);
      });
    });
  const port = await listen(0);

  const closeListener = () =>
    new Promise<void>((resolve) =>
      listener.listening ? listener.close(() => resolve()) : resolve(),
    );

  const proxy: CqlProxy = {
    port,
    stall() {
      if (stalled) return;
      stalled = true;
      for (const { client, server } of pairs) {
        // Unpipe as well: pause() alone lets already-buffered chunks through.
        client.unpipe(server);
        server.unpipe(client);
        client.pause();
        server.pause();
      }
    },
    resume() {
      if (!stalled) return; // piping twice would send every byte twice
      stalled = false;
      for (const { client, server } of pairs) {
        client.pipe(server);
        server.pipe(client);
        client.resume();
        server.resume();
      }
    },
    swallowAnswers() {
      swallowing = true;
      for (const pair of pairs) swallow(pair);
    },
    async kill() {
      swallowing = false;
      const closing = closeListener();
      for (const { client, server } of pairs) {
        client.resetAndDestroy();
        server.destroy();
      }
      pairs.clear();
      await closing;
    },
    async revive() {
      listener = net.createServer(onConnection);
      await listen(port);
    },
    close: () => proxy.kill(),
  };
  return proxy;
}
