/**
 * A private redis-server for fault tests: they stop, pause and kill it, which must never happen
 * to the shared instance on 6379. Loopback only, no persistence.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';

export interface OwnRedis {
  readonly url: string;
  readonly port: number;
  pause(): void; // SIGSTOP: connections stay open, nothing answers (a "slow" Redis)
  resume(): void;
  kill(): Promise<void>;
}

export async function startOwnRedis(port: number): Promise<OwnRedis> {
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const probe = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    retryStrategy: () => null,
  });
  probe.on('error', () => {}); // refused while the server starts; the loop retries
  for (let i = 0; ; i++) {
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      break;
    } catch (err) {
      if (i >= 50) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const pid = child.pid!;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pause: () => process.kill(pid, 'SIGSTOP'),
    resume: () => process.kill(pid, 'SIGCONT'),
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(pid, 'SIGCONT');
      process.kill(pid, 'SIGKILL');
      await exited;
    },
  };
}
