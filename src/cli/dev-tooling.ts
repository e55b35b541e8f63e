/**
 * Is this a development checkout? The local Cassandra, the load tester and the demo seed are
 * development tools: a production install (`npm ci --omit=dev`) has no devDependencies, and the
 * build may leave their modules out. Asked without loading anything (a resolve is a few stat
 * calls), so `regrid --help` can mark them.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** True when the devDependencies are installed (tsx stands for all of them). */
export function devCheckout(resolve: (id: string) => string = require.resolve): boolean {
  try {
    resolve('tsx/package.json');
    return true;
  } catch {
    return false;
  }
}

/** What to print when a development command runs in a production install. */
export function devOnlyMessage(command: string, instead: string): string {
  return (
    `regrid ${command} needs a development checkout (git clone, then npm install with its ` +
    `devDependencies); this install has none. ${instead}`
  );
}

/** True for "this module (or a package it imports) is not installed". */
export function isMissingModule(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}
