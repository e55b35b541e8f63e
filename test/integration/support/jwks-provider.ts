/**
 * A real identity provider's key endpoint for tests: a node:http server on loopback serving a
 * JSON Web Key Set of keys generated here with jose, counting its requests, which a test can
 * rotate (publish another set), stop (the provider is down) and start again on the same port.
 * Tokens are signed with jose's SignJWT, as a provider would.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type JWK, type CryptoKey } from 'jose';

export interface SigningKey {
  readonly kid: string;
  readonly alg: 'RS256' | 'ES256' | 'EdDSA';
  readonly privateKey: CryptoKey;
  /** The public half as the provider publishes it. */
  readonly jwk: JWK;
}

export async function signingKey(alg: SigningKey['alg'], kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, alg, privateKey, jwk };
}

/** A token signed with `key` (its kid and alg in the header unless `header` says otherwise). */
export function mint(
  key: SigningKey,
  claims: Record<string, unknown>,
  header: Record<string, unknown> = {},
): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...header })
    .sign(key.privateKey);
}

export interface Provider {
  readonly url: string;
  /** Requests the key endpoint answered since start (or the last `resetHits`). */
  readonly hits: number;
  resetHits(): void;
  /** The set served from now on. */
  publish(keys: readonly SigningKey[]): void;
  /** The provider goes down: the port refuses connections. */
  stop(): Promise<void>;
  /** Back up on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function openProvider(keys: readonly SigningKey[]): Promise<Provider> {
  let body = '';
  let hits = 0;
  const publish = (ks: readonly SigningKey[]) => {
    body = JSON.stringify({ keys: ks.map((k) => k.jwk) });
  };
  publish(keys);
  let server: Server | undefined;
  let port = 0;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((req, res) => {
        hits++;
        if (req.url !== '/.well-known/jwks.json') {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(body);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as AddressInfo).port;
        server = s;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      const s = server;
      server = undefined;
      if (!s) return resolve();
      s.close(() => resolve());
      s.closeAllConnections(); // keep-alive sockets of the verifier's fetches
    });
  await start();
  return {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    get hits() {
      return hits;
    },
    resetHits: () => void (hits = 0),
    publish,
    stop,
    start,
    close: stop,
  };
}
