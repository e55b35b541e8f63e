/**
 * Private processes for the TLS and Sentinel tests: free loopback ports, the test certificates
 * (scripts/make-test-certs.sh, into a temp folder), and servers spawned in the foreground so each
 * PID is the server's own; every one is stopped by that PID, never by name.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** A loopback port nothing listens on right now (the kernel's pick). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as { port: number };
  await new Promise<void>((ok) => server.close(() => ok()));
  return port;
}

export interface TestCerts {
  readonly dir: string;
  readonly ca: string;
  readonly otherCa: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
  /** Java keystores for Cassandra, and their password. */
  readonly keystore: string;
  readonly truststore: string;
  readonly storePassword: string;
}

/** Fresh certificates from the project's script (a CA, a server for 127.0.0.1, a client). */
export function makeTestCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'regrid-certs-'));
  const script = resolve('scripts/make-test-certs.sh');
  const res = spawnSync('bash', [script, dir], { encoding: 'utf8', timeout: 60_000 });
  if (res.status !== 0) throw new Error(`make-test-certs.sh failed: ${res.stdout}${res.stderr}`);
  const at = (f: string) => join(dir, f);
  return {
    dir,
    ca: at('ca.pem'),
    otherCa: at('other-ca.pem'),
    serverCert: at('server.pem'),
    serverKey: at('server.key'),
    clientCert: at('client.pem'),
    clientKey: at('client.key'),
    keystore: at('server-keystore.jks'),
    truststore: at('truststore.jks'),
    storePassword: 'regrid-test',
  };
}

export interface OwnProcess {
  readonly pid: number;
  readonly child: ChildProcess;
  /** SIGKILL (a crash) and wait for the exit. */
  kill(): Promise<void>;
}

/** Spawns `bin args` (output to a log file descriptor or ignored); stop it with kill(). */
export function spawnOwn(bin: string, args: readonly string[]): OwnProcess {
  const child = spawn(bin, [...args], { stdio: 'ignore' });
  if (child.pid === undefined) throw new Error(`could not spawn ${bin}`);
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  const pid = child.pid;
  return {
    pid,
    child,
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(pid, 'SIGCONT');
      process.kill(pid, 'SIGKILL');
      await exited;
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every 100 ms until it is true; throws `what` after `ms`. */
export async function until(what: string, check: () => Promise<boolean>, ms = 15_000) {
  const deadline = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms: ${what}`);
    await sleep(100);
  }
}
