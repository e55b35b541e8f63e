/**
 * A loopback TCP proxy in front of the shared Cassandra node that holds every chunk `latencyMs`
 * each way, in order: to ONE client the node is slow (every statement still runs, each answer
 * arrives later), while the node other people use is untouched. For a node that stalls or dies,
 * see tcp-proxy.ts.
 */
import net from 'node:net';
import { Transform } from 'node:stream';

export interface SlowProxy {
  readonly port: number;
  close(): Promise<void>;
}

/** Passes every chunk on `ms` after it came in, in order (one timer for the head of the queue). */
function delayed(ms: number): Transform {
  const queue: Array<{ due: number; chunk: Buffer }> = [];
  let timer: NodeJS.Timeout | undefined;
  let flushed: (() => void) | undefined;
  const arm = (t: Transform) => {
    const head = queue[0];
    if (timer || !head) return;
    timer = setTimeout(
      () => {
        timer = undefined;
        const now = performance.now();
        while (queue[0] && queue[0].due <= now) t.push(queue.shift()!.chunk);
        if (queue.length > 0) arm(t);
        else flushed?.();
      },
      Math.max(0, head.due - performance.now()),
    );
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      queue.push({ due: performance.now() + ms, chunk });
      arm(this);
      done();
    },
    flush(done) {
      if (queue.length === 0) done();
      else flushed = done;
    },
  });
}

export async function startSlowProxy(
  upstream: { host: string; port: number },
  latencyMs: number,
): Promise<SlowProxy> {
  const sockets = new Set<net.Socket>();
  const listener = net.createServer((client) => {
    const server = net.connect(upstream.port, upstream.host);
    sockets.add(client).add(server);
    client.pipe(delayed(latencyMs)).pipe(server);
    server.pipe(delayed(latencyMs)).pipe(client);
    const drop = () => {
      sockets.delete(client);
      sockets.delete(server);
      client.destroy();
      server.destroy();
    };
    client.on('error', drop).on('close', drop);
    server.on('error', drop).on('close', drop);
  });
  const port = await new Promise<number>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(0, '127.0.0.1', () => resolve((listener.address() as net.AddressInfo).port));
  });
  return {
    port,
    close: async () => {
      const closed = new Promise<void>((resolve) => listener.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
