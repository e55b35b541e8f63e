/**
 * Migration runner: creates the keyspace from config, then applies `cql/NNN_*.cql` in name order,
 * recording each file in `<keyspace>.schema_migrations (id, checksum, status, owner, …)`.
 *
 * Safe to run twice (applied files are skipped after their checksum is verified) and from several
 * processes at once: each file is claimed with a lightweight transaction (`INSERT … IF NOT
 * EXISTS`), only the claimant executes it, and the others wait until it is marked `applied`. A
 * claim whose owner died is taken over after two minutes (statements are written with
 * `IF NOT EXISTS`, so re-running a half-applied file is harmless). After every DDL statement the
 * runner waits for schema agreement, so the next statement never races a disagreeing node.
 *
 * The keyspace and the bookkeeping table are created with plain `IF NOT EXISTS` before any claim
 * can exist; on a multi-node cluster, run `npm run migrate` once before starting many processes.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import type { auth, Client } from 'cassandra-driver';
import { types } from 'cassandra-driver';
import type { Config } from '../config/config.js';
import { createCassandraClient } from './cassandra.js';
import { splitCqlStatements } from './cql-split.js';

export const DEFAULT_CQL_DIR = fileURLToPath(new URL('../../cql/', import.meta.url));

export interface MigrationOptions {
  readonly dir?: string;
  readonly log?: (line: string) => void;
}

export interface MigrationReport {
  readonly applied: string[]; // applied by this call
  readonly skipped: string[]; // already applied (by anyone)
}

interface MigrationFile {
  readonly id: string;
  readonly checksum: string;
  readonly statements: string[];
}

const KEYSPACE_RE = /^[a-z][a-z0-9_]{0,47}$/;

export async function applyMigrations(
  client: Client,
  config: Config,
  keyspace: string,
  options: MigrationOptions = {},
): Promise<MigrationReport> {
  if (!KEYSPACE_RE.test(keyspace)) throw new Error(`invalid keyspace name '${keyspace}'`);
  const log = options.log ?? (() => {});
  const files = await loadMigrationFiles(options.dir ?? DEFAULT_CQL_DIR);
  const table = `${keyspace}.schema_migrations`;
  const lwt = {
    prepare: true,
    consistency: types.consistencies.quorum,
    serialConsistency: types.consistencies.serial,
  };

  await ddl(
    client,
    `CREATE KEYSPACE IF NOT EXISTS ${keyspace} WITH replication = ${replicationCql(config)}`,
  );
  await ddl(
    client,
    `CREATE TABLE IF NOT EXISTS ${table} (id text PRIMARY KEY, checksum text, status text,
       owner text, claimed_at timestamp, applied_at timestamp)`,
  );

  const owner = randomUUID();
  const report: MigrationReport = { applied: [], skipped: [] };
  // The file statements are unqualified ("runs inside the keyspace"), so they go through a
  // short-lived client bound to it; the caller's client keeps its own session keyspace.
  let scoped: Client | undefined;
  try {
    for (const file of files) {
      const claim = await client.execute(
        `INSERT INTO ${table} (id, checksum, status, owner, claimed_at) VALUES (?, ?, 'applying', ?, ?) IF NOT EXISTS`,
        [file.id, file.checksum, owner, new Date()],
        lwt,
      );
      if (!claim.wasApplied()) {
        const row = claim.first();
        assertChecksum(file, row.get('checksum') as string);
        if (row.get('status') === 'applied') {
          report.skipped.push(file.id);
          continue;
        }
        const took = await waitOrTakeOver(client, table, file, owner, log);
        if (took === 'applied-by-other') {
          report.skipped.push(file.id);
          continue;
        }
      }
      scoped ??= await scopedClient(client, config, keyspace);
      log(`migrate: applying ${file.id} (${file.statements.length} statements)`);
      for (const stmt of file.statements) await ddl(scoped, stmt);
      const done = await client.execute(
        `UPDATE ${table} SET status = 'applied', applied_at = ? WHERE id = ? IF owner = ?`,
        [new Date(), file.id, owner],
        lwt,
      );
      if (!done.wasApplied()) throw new Error(`lost the claim on ${file.id} while applying it`);
      report.applied.push(file.id);
    }
  } finally {
    await scoped?.shutdown();
  }
  return report;
}

/** Reads `cql/*.cql`, sorted by name, with a sha256 over the file's bytes. */
export async function loadMigrationFiles(dir: string): Promise<MigrationFile[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.cql')).sort();
  return Promise.all(
    names.map(async (name) => {
      const text = await readFile(join(dir, name), 'utf8');
      return {
        id: name.replace(/\.cql$/, ''),
        checksum: createHash('sha256').update(text).digest('hex'),
        statements: splitCqlStatements(text),
      };
    }),
  );
}

/** `{'class': 'SimpleStrategy', 'replication_factor': 1}` from the parsed config. */
export function replicationCql(config: Config): string {
  const parts = Object.entries(config.CASSANDRA_REPLICATION).map(
    ([k, v]) => `'${k.replace(/'/g, "''")}': ${typeof v === 'number' ? v : `'${v}'`}`,
  );
  return `{${parts.join(', ')}}`;
}

function assertChecksum(file: MigrationFile, recorded: string | null): void {
  if (recorded && recorded !== file.checksum) {
    throw new Error(
      `migration ${file.id} changed after it was applied (recorded ${recorded.slice(0, 12)}…, ` +
        `file ${file.checksum.slice(0, 12)}…); add a new migration instead of editing it`,
    );
  }
}

/** Waits for another process's claim to finish; takes it over if the claimant looks dead. */
async function waitOrTakeOver(
  client: Client,
  table: string,
  file: MigrationFile,
  owner: string,
  log: (line: string) => void,
): Promise<'applied-by-other' | 'taken-over'> {
  const deadline = Date.now() + 300_000;
  log(`migrate: ${file.id} is being applied by another process; waiting`);
  while (Date.now() < deadline) {
    const rs = await client.execute(
      `SELECT status, owner, claimed_at FROM ${table} WHERE id = ?`,
      [file.id],
      { prepare: true, consistency: types.consistencies.serial },
    );
    const row = rs.first();
    if (row?.get('status') === 'applied') return 'applied-by-other';
    const claimedAt = row?.get('claimed_at') as Date | null;
    if (row && claimedAt && Date.now() - claimedAt.getTime() > 120_000) {
      const take = await client.execute(
        `UPDATE ${table} SET owner = ?, claimed_at = ? WHERE id = ? IF owner = ? AND status = 'applying'`,
        [owner, new Date(), file.id, row.get('owner')],
        {
          prepare: true,
          consistency: types.consistencies.quorum,
          serialConsistency: types.consistencies.serial,
        },
      );
      if (take.wasApplied()) {
        log(`migrate: took over the stale claim on ${file.id}`);
        return 'taken-over';
      }
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for another process to apply ${file.id}`);
}

/** A schema change waits for every replica's flush and agreement: far longer than a read. */
const DDL_TIMEOUT_MS = 30_000;

/** Runs a schema statement, then waits until every live node reports the same schema version. */
async function ddl(client: Client, statement: string): Promise<void> {
  await client.execute(statement, [], { prepare: false, readTimeout: DDL_TIMEOUT_MS });
  await waitForSchemaAgreement(client);
}

/**
 * How long a schema change may take to reach every live node. Generous on purpose: a migration
 * runs once, and a replica slow to gossip (a ring just formed on a loaded machine took over 30 s
 * in CI) must not fail it halfway; applied files are skipped when it is run again.
 */
const AGREEMENT_TIMEOUT_MS = 120_000;

export async function waitForSchemaAgreement(
  client: Client,
  timeoutMs = AGREEMENT_TIMEOUT_MS,
): Promise<void> {
  const meta = client.metadata as unknown as { checkSchemaAgreement(): Promise<boolean> };
  const deadline = Date.now() + timeoutMs;
  while (!(await meta.checkSchemaAgreement())) {
    if (Date.now() > deadline) throw new Error('schema agreement not reached');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A client on the same cluster as `client`, bound to `keyspace`. */
async function scopedClient(client: Client, config: Config, keyspace: string): Promise<Client> {
  const opts = (client as unknown as { options?: Record<string, unknown> }).options ?? {};
  const contactPoints = opts['contactPoints'] as string[] | undefined;
  const localDataCenter = opts['localDataCenter'] as string | undefined;
  const port = (opts['protocolOptions'] as { port?: number } | undefined)?.port;
  // The host's TLS and credentials too: an embedding host's client carries its own, and `config`
  // (regrid's settings) may name neither, so the migration's client would connect in plain text.
  const sslOptions = opts['sslOptions'] as ConnectionOptions | undefined;
  const authProvider = opts['authProvider'] as auth.AuthProvider | undefined;
  const scoped = createCassandraClient(config, {
    keyspace,
    ...(contactPoints ? { contactPoints } : {}),
    ...(localDataCenter ? { localDataCenter } : {}),
    ...(port ? { port } : {}),
    ...(sslOptions ? { sslOptions } : {}),
    ...(authProvider ? { authProvider } : {}),
  });
  await scoped.connect();
  return scoped;
}
