/** The document's shared parts: security schemes, header parameters and response headers. */

export const components = {
  securitySchemes: {
    bearerAuth: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description:
        "HS256 JWT signed with AUTH_JWT_SECRET (`sub` = the caller's profile ID, decimal string), or with AUTH_JWKS_URL set a token of the identity provider (RS256, ES256, EdDSA; `iss` = AUTH_JWT_ISSUER, `aud` containing AUTH_JWT_AUDIENCE, the profile ID in AUTH_PROFILE_CLAIM). Numeric `exp` and `iat` required. While the provider's key set cannot be fetched and none is cached: 503 `unavailable` with Retry-After.",
    },
    adminToken: {
      type: 'http',
      scheme: 'bearer',
      description:
        'The ADMIN_TOKEN secret (never a user JWT); without it the admin API answers 403.',
    },
    serviceAuth: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description:
        'HS256 JWT signed with AUTH_SERVICE_JWT_SECRET: `{sub: <service name>, scope: "service", iat, exp}`; or with AUTH_SERVICE_JWT_AUDIENCE set a token of the identity provider whose `aud` contains it (the service name in AUTH_SERVICE_NAME_CLAIM). A user token is refused here and a service token is refused on /v1/me/*; without either setting the service routes answer 403.',
    },
  },
  parameters: {
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'A retry with the same key and request gets the stored response (`Idempotent-Replayed: true`) and changes nothing; the same key with another request is 422; while the first runs, 409. A Structured Field string ("...") or a bare token.',
      schema: { type: 'string', pattern: '^"?[\\x21-\\x7e]{1,255}"?$' },
      example: '"8e0c1f6a-2d4b-4c3e-9f1a-6b7c8d9e0f12"',
    },
    IfMatch: {
      name: 'If-Match',
      in: 'header',
      required: true,
      description:
        'The ETag of the order the body was built from (428 without it, 412 when stale).',
      schema: { type: 'string' },
      example: '"1.5"',
    },
    IfNoneMatch: {
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description: 'The ETag the caller holds: 304 while it is current.',
      schema: { type: 'string' },
      example: '"1.5"',
    },
  },
  headers: {
    ETag: {
      description: 'The grid\'s `"<generation>.<version>"`',
      schema: { type: 'string', pattern: '^"[1-9][0-9]*\\.(?:0|[1-9][0-9]*)"$' },
    },
    PageETag: {
      description:
        'Strong validator of the page: 128 bits of the SHA-256 of the body, base64url (with `Cache-Control: no-cache`)',
      schema: { type: 'string', pattern: '^"[A-Za-z0-9_-]{22}"$' },
    },
    IdempotentReplayed: {
      description:
        '`true` when the answer is the stored response of an earlier request with this key',
      schema: { type: 'string', enum: ['true'] },
    },
    RetryAfter: {
      description: 'Seconds to wait before retrying',
      schema: { type: 'string', pattern: '^[0-9]+$' },
    },
    WWWAuthenticate: { description: '`Bearer`', schema: { type: 'string' } },
  },
};
