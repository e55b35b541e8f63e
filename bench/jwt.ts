/**
 * What verifying a bearer token costs, by kind: `npx tsx bench/jwt.ts [--tokens 2000]`.
 *
 * HS256 with the shared secret (src/http/auth.ts `hs256UserTokens`) against ES256 and RS256
 * tokens of an identity provider (src/http/jwks-tokens.ts over a KeySet fetching from a
 * node:http key endpoint on loopback, fetched once), one after another in one process:
 *   - distinct: every token is new to the verifier (signature, header and claims checked): what
 *     the first request of a client costs;
 *   - repeated: one token again and again (nothing is remembered: every request verifies its
 *     token in full): what a client's later requests cost.
 * Two rounds (the first warms the JIT); prints the second's verifications per second for each,
 * and JWKS ÷ HS256. One machine, one run: compare the rows, not runs.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { hs256UserTokens, type TokenRules } from '../src/http/auth.js';
import { KeySet } from '../src/http/jwks.js';
import { keySetTokens } from '../src/http/jwks-tokens.js';
import { signHs256 } from '../src/http/jwt.js';

const { values: args } = parseArgs({ options: { tokens: { type: 'string', default: '2000' } } });
const N = Number(args.tokens);
const REPEATS = 20_000;
const POLICY = { maxLifetimeS: 86_400, clockSkewS: 30 };
const ISSUER = 'https://idp.bench/';
const AUDIENCE = 'regrid-api';
const SECRET = 'bench-jwt-secret-0123456789abcdef';

const keys = await Promise.all(
  (['ES256', 'RS256'] as const).map(async (alg) => {
    const pair = await generateKeyPair(alg, { extractable: true });
    return { alg, kid: `${alg}-1`, pair, jwk: await exportJWK(pair.publicKey) };
  }),
);
const body = JSON.stringify({ keys: keys.map((k) => ({ ...k.jwk, kid: k.kid, alg: k.alg })) });
const server = createServer((_req, res) => res.writeHead(200).end(body));
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
const keySet = new KeySet({
  url,
  maxAgeMs: 3_600_000,
  maxStaleMs: 0,
  cooldownMs: 30_000,
  timeoutMs: 5000,
});
const jwks = keySetTokens(
  keySet,
  { issuer: ISSUER, audience: AUDIENCE, algorithms: ['ES256', 'RS256'], subjectClaim: 'sub' },
  POLICY,
);

const now = Math.floor(Date.now() / 1000);
const claims = (i: number) => ({
  iss: ISSUER,
  aud: AUDIENCE,
  sub: String(1000 + i),
  iat: now,
  exp: now + 3600,
});

async function minted(kind: string): Promise<string[]> {
  const out: string[] = [];
  const key = keys.find((k) => k.alg === kind);
  for (let i = 0; i < N; i++) {
    if (!key) out.push(signHs256(claims(i), SECRET));
    else
      out.push(
        await new SignJWT(claims(i))
          .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
          .sign(key.pair.privateKey),
      );
  }
  return out;
}

async function perSecond(rules: TokenRules, tokens: readonly string[]): Promise<number> {
  const t0 = process.hrtime.bigint();
  for (const t of tokens) await rules.verify(t, now);
  return tokens.length / (Number(process.hrtime.bigint() - t0) / 1e9);
}

const KINDS = ['HS256', 'ES256', 'RS256'];
const tokensOf = new Map<string, string[]>();
for (const kind of KINDS) tokensOf.set(kind, await minted(kind));
await jwks.verify(tokensOf.get('ES256')![0]!, now); // the key set's one fetch

// Round 1 warms the JIT for every kind; round 2, with fresh verifiers, is the one printed.
let rows: { kind: string; distinct: number; repeated: number }[] = [];
for (let round = 0; round < 2; round++) {
  rows = [];
  const jwksRound = keySetTokens(
    keySet,
    { issuer: ISSUER, audience: AUDIENCE, algorithms: ['ES256', 'RS256'], subjectClaim: 'sub' },
    POLICY,
  );
  for (const kind of KINDS) {
    const tokens = tokensOf.get(kind)!;
    const rules = kind === 'HS256' ? hs256UserTokens(SECRET, POLICY) : jwksRound;
    const distinct = await perSecond(rules, tokens);
    const repeated = await perSecond(rules, Array<string>(REPEATS).fill(tokens[0]!));
    rows.push({ kind, distinct, repeated });
  }
}
server.close();

const hs = rows[0]!;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US').padStart(11);
console.log(`node ${process.version}, ${N} distinct tokens and ${REPEATS} repeats per kind`);
console.log('kind              distinct/s   repeated/s   distinct vs HS256');
for (const r of rows) {
  const label = r.kind === 'HS256' ? 'HS256 (secret)' : `${r.kind} (JWKS)`;
  const ratio = (r.distinct / hs.distinct).toFixed(3);
  console.log(`${label.padEnd(16)} ${fmt(r.distinct)}  ${fmt(r.repeated)}   ${ratio}`);
}
