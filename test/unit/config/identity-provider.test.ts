/**
 * The identity provider's settings (src/config/idp.ts): what the configuration refuses, what a
 * production server then needs (config.ts `missingForProduction`, bootstrap.ts `settleSecrets`),
 * and that an HMAC algorithm can never be allowed for the key set.
 */
import { describe, expect, it } from 'vitest';
import { settleSecrets } from '../../../src/bootstrap.js';
import { loadConfig, missingForProduction } from '../../../src/config/config.js';
import { ASYMMETRIC_ALGORITHMS } from '../../../src/config/idp.js';

const IDP = {
  AUTH_JWKS_URL: 'https://idp.example/.well-known/jwks.json',
  AUTH_JWT_ISSUER: 'https://idp.example/',
  AUTH_JWT_AUDIENCE: 'regrid-api',
};

describe('identity provider settings', () => {
  it('a key set URL needs an issuer and an audience', () => {
    expect(() => loadConfig({ AUTH_JWKS_URL: IDP.AUTH_JWKS_URL })).toThrow(
      /AUTH_JWT_ISSUER: required with AUTH_JWKS_URL\n {2}AUTH_JWT_AUDIENCE: required/,
    );
    expect(loadConfig(IDP)).toMatchObject({
      ...IDP,
      AUTH_JWT_ALGORITHMS: [...ASYMMETRIC_ALGORITHMS],
      AUTH_PROFILE_CLAIM: 'sub',
    });
    expect(() => loadConfig({ ...IDP, AUTH_JWKS_URL: 'file:///etc/jwks.json' })).toThrow(
      /AUTH_JWKS_URL/,
    );
  });

  it('the service audience needs the key set and differs from the user audience and secret', () => {
    const svc = 'regrid-services';
    expect(() => loadConfig({ AUTH_SERVICE_JWT_AUDIENCE: svc })).toThrow(/needs AUTH_JWKS_URL/);
    expect(() => loadConfig({ ...IDP, AUTH_SERVICE_JWT_AUDIENCE: 'regrid-api' })).toThrow(
      /must differ from AUTH_JWT_AUDIENCE/,
    );
    const secret = 'a-service-secret-0123456789';
    expect(() =>
      loadConfig({ ...IDP, AUTH_SERVICE_JWT_AUDIENCE: svc, AUTH_SERVICE_JWT_SECRET: secret }),
    ).toThrow(/not both/);
    expect(loadConfig({ ...IDP, AUTH_SERVICE_JWT_AUDIENCE: svc }).AUTH_SERVICE_JWT_AUDIENCE).toBe(
      svc,
    );
  });

  it('allows asymmetric algorithms only', () => {
    for (const algs of ['HS256', 'RS256,HS512', 'none', ''])
      expect(() => loadConfig(IDP, { AUTH_JWT_ALGORITHMS: algs }), algs).toThrow(
        /AUTH_JWT_ALGORITHMS/,
      );
    expect(loadConfig(IDP, { AUTH_JWT_ALGORITHMS: 'ES256, PS256' }).AUTH_JWT_ALGORITHMS).toEqual([
      'ES256',
      'PS256',
    ]);
  });

  it('in production a key set stands in for AUTH_JWT_SECRET, and CURSOR_SECRET is needed', () => {
    const base = { CASSANDRA_CONTACT_POINTS: '10.0.0.1', REDIS_URL: 'none', ...IDP };
    expect(missingForProduction(base)).toEqual(['CURSOR_SECRET']);
    const cursor = 'a-cursor-secret-0123456789';
    expect(missingForProduction({ ...base, CURSOR_SECRET: cursor })).toEqual([]);
    const prod = loadConfig({ ...base, NODE_ENV: 'production' });
    expect(() => settleSecrets(prod)).toThrow(/CURSOR_SECRET must be set/);
    const settled = settleSecrets(loadConfig({ ...base, NODE_ENV: 'production', CURSOR_SECRET: cursor })); // prettier-ignore
    expect(settled).toMatchObject({ cursorSecret: cursor, generated: false });
    // In development nothing is generated for sign-in: its HS256 tokens would be refused.
    expect(settleSecrets(loadConfig(IDP)).generated).toBe(false);
  });
});
