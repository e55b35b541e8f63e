/**
 * Node `tls.connect` options from the TLS settings of a store (CASSANDRA_TLS_*, REDIS_TLS_*,
 * config/cassandra.ts and config/redis.ts): the CA bundle to trust, an optional client
 * certificate and key, and hostname verification. The files are read once, when the client is
 * built; an unreadable one fails start-up with the setting's name.
 *
 * The chain is always verified (`rejectUnauthorized: true`: cassandra-driver would otherwise
 * default it to false). Turning hostname verification off skips only the name check.
 */
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';

export interface TlsFiles {
  /** PEM CA bundle to trust instead of Node's built-in CAs. */
  readonly caFile?: string | undefined;
  /** PEM client certificate (chain) and its key, for servers that require client certificates. */
  readonly certFile?: string | undefined;
  readonly keyFile?: string | undefined;
  /** Check the server's certificate names this host (or `serverName`); on unless turned off. */
  readonly verifyHostname: boolean;
  /** The name checked and sent as SNI instead of the address connected to. */
  readonly serverName?: string | undefined;
}

/** A store's TLS settings by name (`CASSANDRA_TLS_CA_FILE`, …: config/cassandra.ts, config/redis.ts). */
export type TlsSettings<S extends 'CASSANDRA' | 'REDIS'> = {
  readonly [K in `${S}_TLS_${'CA_FILE' | 'CERT_FILE' | 'KEY_FILE' | 'SERVERNAME'}`]?:
    string | undefined;
} & { readonly [K in `${S}_TLS_VERIFY_HOSTNAME`]: boolean };

/** `store`'s TlsFiles out of its settings. */
export function tlsFilesOf<S extends 'CASSANDRA' | 'REDIS'>(c: TlsSettings<S>, store: S): TlsFiles {
  const at = (name: string) =>
    (c as Record<string, string | boolean | undefined>)[`${store}_TLS_${name}`];
  return {
    caFile: at('CA_FILE') as string | undefined,
    certFile: at('CERT_FILE') as string | undefined,
    keyFile: at('KEY_FILE') as string | undefined,
    verifyHostname: at('VERIFY_HOSTNAME') as boolean,
    serverName: at('SERVERNAME') as string | undefined,
  };
}

/** `prefix` names the settings in errors (`CASSANDRA_TLS` → `CASSANDRA_TLS_CA_FILE: …`). */
export function tlsOptionsOf(files: TlsFiles, prefix: string): ConnectionOptions {
  const read = (suffix: string, path: string | undefined) => {
    if (path === undefined) return undefined;
    try {
      return readFileSync(path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new Error(`${prefix}_${suffix}: cannot read '${path}' (${code})`);
    }
  };
  const ca = read('CA_FILE', files.caFile);
  const cert = read('CERT_FILE', files.certFile);
  const key = read('KEY_FILE', files.keyFile);
  return {
    rejectUnauthorized: true,
    ...(ca ? { ca } : {}),
    ...(cert ? { cert } : {}),
    ...(key ? { key } : {}),
    ...(files.serverName ? { servername: files.serverName } : {}),
    ...(files.verifyHostname ? {} : { checkServerIdentity: () => undefined }),
  };
}

/**
 * What is wrong with one store's TLS settings, or undefined: a certificate without its key (or
 * the reverse), or files named while TLS is off (they would silently go unused). `off` says how
 * TLS is turned off, for the message.
 */
export function tlsSettingsProblem(
  files: TlsFiles,
  enabled: boolean,
  prefix: string,
  off: string,
): { readonly setting: string; readonly message: string } | undefined {
  if ((files.certFile === undefined) !== (files.keyFile === undefined)) {
    const missing = files.certFile === undefined ? 'CERT_FILE' : 'KEY_FILE';
    return { setting: `${prefix}_${missing}`, message: 'a client certificate needs both files' };
  }
  const named: Array<[string, string | undefined]> = [
    ['CA_FILE', files.caFile],
    ['CERT_FILE', files.certFile],
    ['SERVERNAME', files.serverName],
  ];
  const set = named.find(([, v]) => v !== undefined);
  if (!enabled && set) {
    return { setting: `${prefix}_${set[0]}`, message: `set, but ${off}: it would go unused` };
  }
  return undefined;
}
