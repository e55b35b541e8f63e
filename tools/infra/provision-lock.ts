/**
 * A cross-process lock file, so that `npm start`, `npm run cassandra:up` and a test run started
 * at the same moment do not resolve jars or launch two JVMs at once. The file holds the owner's
 * PID; a lock whose owner has died is taken over.
 */
import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import { dirname } from 'node:path';
import { isAlive, sleep } from './process-utils.js';

function tryAcquire(file: string): boolean {
  try {
    const fd = openSync(file, 'wx');
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const owner = Number(readFileSync(file, 'utf8').trim());
    if (!Number.isInteger(owner) || owner <= 0 || !isAlive(owner)) {
      rmSync(file, { force: true }); // stale: its owner is gone
    }
    return false;
  }
}

/**
 * Runs `fn` holding the lock. While another live process holds it, calls `whileWaiting` every
 * second; if that returns a value, the wait ends and the value is returned without running `fn`
 * (e.g. "the other process already got the node up").
 */
export async function withLock<T>(
  file: string,
  fn: () => Promise<T>,
  whileWaiting: () => Promise<T | undefined>,
  timeoutMs = 15 * 60_000,
): Promise<T> {
  mkdirSync(dirname(file), { recursive: true });
  const started = Date.now();
  while (!tryAcquire(file)) {
    const early = await whileWaiting();
    if (early !== undefined) return early;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for lock ${file}`);
    await sleep(1000);
  }
  try {
    return await fn();
  } finally {
    rmSync(file, { force: true });
  }
}
