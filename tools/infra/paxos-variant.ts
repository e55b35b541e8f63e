/**
 * The Paxos variant a local node really runs, and switching it at run time (bench/paxos.ts).
 *
 * Cassandra 5.0 keeps the variant in one volatile field that every LWT consults
 * (`Paxos.setPaxosVariant` also updates DatabaseDescriptor's config), and exposes it as the
 * read-write `PaxosVariant` attribute of the StorageProxy MBean. There is no nodetool command for
 * it, so it is read and written with nodetool's bundled SJK (`nodetool sjk mx`), over the node's
 * own JMX port on 127.0.0.1. Three witnesses are checked: the MBean, `system_views.settings`
 * (which reads the live config), and the start-up configuration the node logged.
 */
import type { Client } from 'cassandra-driver';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NodeLayout } from './cassandra-files.js';
import { runNodetoolAt } from './nodetool.js';

export type PaxosVariant = 'v1' | 'v2';

const BEAN = 'org.apache.cassandra.db:type=StorageProxy';

/** The last non-empty line SJK printed (it prints the bean's name first). */
const lastLine = (out: string) =>
  out
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .at(-1) ?? '';

/** The variant the StorageProxy MBean reports. */
export async function jmxPaxosVariant(layout: NodeLayout): Promise<string> {
  return lastLine(
    await runNodetoolAt(layout, ['sjk', 'mx', '-b', BEAN, '-mg', '-f', 'PaxosVariant']),
  );
}

/** Switches the running node's variant (takes effect for the next LWT). */
export async function setJmxPaxosVariant(layout: NodeLayout, variant: PaxosVariant): Promise<void> {
  await runNodetoolAt(layout, [
    'sjk',
    'mx',
    '-b',
    BEAN,
    '-ms',
    '-f',
    'PaxosVariant',
    '-v',
    variant,
  ]);
}

/** `paxos_variant` as the node's settings virtual table reports it. */
export async function settingsPaxosVariant(client: Client): Promise<string | undefined> {
  const rs = await client.execute(
    "SELECT value FROM system_views.settings WHERE name = 'paxos_variant'",
  );
  const v = rs.first()?.get('value');
  return typeof v === 'string' ? v : undefined;
}

/** The variant in the last configuration the node logged at start-up ("Node configuration:[…]"). */
export function loggedPaxosVariant(layout: NodeLayout): string | undefined {
  let log: string;
  try {
    log = readFileSync(join(layout.logDir, 'system.log'), 'utf8');
  } catch {
    return undefined;
  }
  const all = [...log.matchAll(/paxos_variant=([a-z0-9_]+)/g)];
  return all.at(-1)?.[1];
}

export interface VariantWitnesses {
  readonly jmx: string;
  readonly settings: string | undefined;
}

/** Why the witnesses contradict `want`, or null when every one of them says it. */
export function variantMismatch(want: PaxosVariant, seen: VariantWitnesses): string | null {
  if (seen.jmx === want && seen.settings === want) return null;
  return (
    `paxos variant is not ${want}: StorageProxy MBean says '${seen.jmx || '(nothing)'}', ` +
    `system_views.settings says '${seen.settings ?? '(none)'}'`
  );
}

/** Both live witnesses agree with `want`, or this throws saying what each one said. */
export async function verifyPaxosVariant(
  layout: NodeLayout,
  client: Client,
  want: PaxosVariant,
): Promise<VariantWitnesses> {
  const seen = { jmx: await jmxPaxosVariant(layout), settings: await settingsPaxosVariant(client) };
  const problem = variantMismatch(want, seen);
  if (problem) throw new Error(problem);
  return seen;
}
