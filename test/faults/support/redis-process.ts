/**
 * A private redis-server for a test suite (the fault and cluster suites each run one on a port of
 * their own): spawned in the foreground so the PID is the server's own, no persistence (a cache),
 * stopped by that PID only.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive, sleep, tcpOpen } from '../../../tools/infra/process-utils.js';
import { redisAnswers } from '../../../tools/infra/redis-local.js';

export async function startPrivateRedis(port: number, home: string): Promise<number> {
  if (await tcpOpen('127.0.0.1', port, 300)) {
    throw new Error(`127.0.0.1:${port} is in use by another process`);
  }
  const dir = join(home, 'redis');
  mkdirSync(dir, { recursive: true });
  const out = openSync(join(dir, `redis-${port}.log`), 'a');
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], // prettier-ignore
    { stdio: ['ignore', out, out] },
  );
  closeSync(out);
  if (child.pid === undefined) throw new Error('could not spawn redis-server');
  for (let i = 0; i < 100; i++) {
    if (await redisAnswers('127.0.0.1', port)) return child.pid;
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error(`private redis-server did not answer on ${port}`);
}

export async function stopPrivateRedis(pid: number): Promise<void> {
  if (!isAlive(pid)) return;
  process.kill(pid, 'SIGCONT'); // a test that failed mid-pause must not leave it stopped
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 100 && isAlive(pid); i++) await sleep(50);
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
}
