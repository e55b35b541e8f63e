/**
 * The labels of `regrid_build_info`: this package's version (`version`, also the CLI's) and the
 * Cassandra release the client is connected to (what a dashboard needs to tell two deployments
 * apart).
 */
import { readFileSync } from 'node:fs';
import type { Client } from 'cassandra-driver';

/**
 * This package's version (package.json), read once: `regrid_build_info`, the OpenAPI document
 * and `regrid --version` all show this one value. The relative path is the same from
 * src/obs/ (tsx) and dist/obs/ (the build), both two levels below package.json.
 */
export const version: string = readVersion();

function readVersion(): string {
  try {
    const url = new URL('../../package.json', import.meta.url);
    return String((JSON.parse(readFileSync(url, 'utf8')) as { version?: string }).version);
  } catch {
    return 'unknown';
  }
}

/** `release_version` of the coordinator; 'unknown' rather than failing start-up over a label. */
export async function releaseVersion(client: Pick<Client, 'execute'>): Promise<string> {
  try {
    const rs = await client.execute('SELECT release_version FROM system.local');
    return String(rs.first()?.['release_version'] ?? 'unknown');
  } catch {
    return 'unknown';
  }
}
