/**
 * The labels of `regrid_build_info`: this package's version and the Cassandra release the
 * client is connected to (what a dashboard needs to tell two deployments apart).
 */
import { readFileSync } from 'node:fs';
import type { Client } from 'cassandra-driver';

export function packageVersion(): string {
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
