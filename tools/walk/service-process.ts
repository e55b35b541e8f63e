/**
 * Starts the real server as a child process (tools/walk/child.ts) on a free loopback port and
 * talks to it: HTTP on the port, `take` (a V8 coverage window) and `cpu` over the IPC channel.
 * The environment it gets is this process's, then `env` (the ablation switches of a load test,
 * the coverage directory of the walk), so the child reads exactly the settings it is told.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url));
const START_TIMEOUT_MS = 120_000;

export interface ServiceProcess {
  readonly base: string;
  readonly pid: number;
  /** Ends a V8 coverage window (resolves once the child wrote its file). */
  take(): Promise<void>;
  /** The child's CPU time (user + system) so far, in microseconds. */
  cpuUs(): Promise<number>;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export async function startService(
  env: Record<string, string>,
  log: (line: string) => void = () => {},
): Promise<ServiceProcess> {
  const port = await freePort();
  const child: ChildProcess = fork(CHILD, [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  let seq = 0;
  const waiting = new Map<number, (m: Record<string, unknown>) => void>();
  child.on('message', (m: Record<string, unknown>) => {
    const id = m.id as number;
    waiting.get(id)?.(m);
    waiting.delete(id);
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const ask = (op: 'take' | 'cpu') =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = ++seq;
      waiting.set(id, resolve);
      child.send({ id, op }, (err) => err && reject(err));
    });
  const base = `http://127.0.0.1:${port}`;
  const until = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const up = await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null || Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`the service did not start (exit ${child.exitCode}):\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  log(`[service] pid ${child.pid} on ${base}`);
  return {
    base,
    pid: child.pid!,
    take: async () => {
      await ask('take');
    },
    cpuUs: async () => (await ask('cpu')).cpuUs as number,
    async stop() {
      if (child.exitCode === null) child.kill('SIGINT');
      const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(t);
    },
  };
}
