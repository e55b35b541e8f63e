/**
 * Small process and network helpers shared by the provisioning modules (embedded Cassandra,
 * local Redis, nodetool). Nothing here knows about Cassandra or Redis.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** True when a process with this PID exists (signal 0 probes without signalling). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The command line of a live process (Linux /proc), or '' when unknown. Guards against PID reuse. */
export function commandLineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

/**
 * Full path of an executable found on PATH, or undefined. Asks the shell (`command -v`) so that
 * this module never reads the environment itself (only src/config/config.ts does).
 */
export function findOnPath(name: string): string | undefined {
  const res = spawnSync('sh', ['-c', 'command -v "$0"', name], { encoding: 'utf8' });
  const found = res.status === 0 ? res.stdout.trim() : '';
  return found.startsWith('/') ? found : undefined;
}

/**
 * Opens a TCP connection to host:port and lets `talk` decide the answer by calling `done`; an
 * error or `timeoutMs` of silence answers false. The socket is always destroyed. Never rejects.
 */
export function probeTcp(
  host: string,
  port: number,
  timeoutMs: number,
  talk: (socket: Socket, done: (ok: boolean) => void) => void,
): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    talk(socket, done);
  });
}

/** Resolves true when a TCP connection to host:port succeeds within timeoutMs. Never rejects. */
export function tcpOpen(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return probeTcp(host, port, timeoutMs, (socket, done) => {
    socket.once('connect', () => done(true));
  });
}

/** Last `lines` lines of a text file ('' when missing): used to explain start failures. */
export function tailFile(path: string, lines = 40): string {
  try {
    const text = readFileSync(path, 'utf8');
    return text.split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** True for hosts that can only mean this machine. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || h.startsWith('127.');
}
