/** The moderation, flag, probe and documentation routes (routes/admin, flags, health, metrics, docs). */
import { z } from '@hono/zod-openapi';
import { FLAG_NAMES } from '../../service/flags.js';
import { IdString } from '../schemas.js';
import { DOCS_ASSETS } from './docs-assets.js';
import {
  DevTokenJson,
  FlagJson,
  FlagsJson,
  HealthJson,
  ReadyJson,
  TakedownJson,
} from './responses.js';
import { admin, file, idempotencyKey, json, ok, route } from './route.js';

const POST = '4212987700602435584';
const operations = ['operations'];

export const FlagBody = z.strictObject({ enabled: z.boolean() });
export const takedown = route('takedown', {
  method: 'post',
  path: '/v1/admin/posts/{post_id}/takedown',
  tags: ['admin'],
  summary: 'Moderation: remove a post from every grid, then delete it',
  security: admin,
  parameters: [idempotencyKey],
  request: { params: z.object({ post_id: IdString }) },
  responses: {
    200: ok('the grids it left, with their versions', TakedownJson, {
      post_id: POST,
      grids: [{ profile_id: '4212987699721631744', grid_version: '10' }],
    }),
  },
  problems: ['post_not_found', 'contention'],
});

export const listFlags = route('listFlags', {
  method: 'get',
  path: '/v1/admin/flags',
  tags: ['admin'],
  summary: 'The operational flags',
  security: admin,
  responses: {
    200: ok('every flag and how soon every process follows a flip', FlagsJson, {
      flags: [{ name: 'reads.overrides', enabled: true, stored: false }],
      refresh_bound_ms: 1000,
    }),
  },
  problems: [],
});

export const setFlag = route('setFlag', {
  method: 'put',
  path: '/v1/admin/flags/{name}',
  tags: ['admin'],
  summary: 'Switch an operational flag (an idempotent overwrite)',
  security: admin,
  request: {
    params: z.object({ name: z.enum(FLAG_NAMES) }),
    body: json(FlagBody, { enabled: false }),
  },
  responses: {
    200: ok('the flag as stored', FlagJson, {
      name: 'writes.reorder',
      enabled: false,
      stored: true,
    }),
  },
  problems: ['flag_not_found'],
});

export const devToken = route('devToken', {
  method: 'post',
  path: '/dev/token',
  tags: operations,
  summary: 'Development only: a token for the demo profile (the web editor signs in with it)',
  description:
    'Exists only when the server generated its JWT secret (no `AUTH_JWT_SECRET` configured); a deployment with real secrets answers 404.',
  security: [],
  responses: {
    200: ok('a bearer token', DevTokenJson, {
      token: 'eyJhbGciOiJIUzI1NiJ9…',
      profile_id: '4242',
      expires_in: 86400,
    }),
  },
  problems: [],
});

export const healthz = route('healthz', {
  method: 'get',
  path: '/healthz',
  tags: operations,
  summary: 'Liveness',
  security: [],
  responses: { 200: ok('the process runs', HealthJson, { status: 'ok' }) },
  problems: [],
});

const ready = { status: 'ready', checks: { cassandra: 'ok', redis: 'ok' } };
export const readyz = route('readyz', {
  method: 'get',
  path: '/readyz',
  tags: operations,
  summary:
    'Readiness (503 plain JSON with Retry-After while draining, while Cassandra does not answer, or without the replicas the consistency levels need)',
  security: [],
  responses: {
    200: ok('Cassandra answers; Redis `ok` or `degraded`', ReadyJson, ready),
    503: ok(
      'draining, Cassandra does not answer, or too few live replicas: take the instance out of rotation',
      ReadyJson,
      undefined,
      { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
    ),
  },
  problems: [],
});

export const metrics = route('metrics', {
  method: 'get',
  path: '/metrics',
  tags: operations,
  summary: 'Prometheus metrics (text exposition)',
  security: [],
  responses: { 200: file('the registry', 'text/plain') },
  problems: [],
});

export const openapi = route('openapi', {
  method: 'get',
  path: '/openapi.json',
  tags: operations,
  summary: 'This document (OpenAPI 3.1)',
  security: [],
  responses: { 200: file('the document', 'application/json') },
  problems: [],
});

export const docs = route('docs', {
  method: 'get',
  path: '/docs',
  tags: operations,
  summary: 'Interactive API documentation (Swagger UI, served locally)',
  security: [],
  responses: { 200: file('the page', 'text/html') },
  problems: [],
});

export const docsAsset = route('docsAsset', {
  method: 'get',
  path: '/docs/{asset}',
  tags: operations,
  summary: "Swagger UI's files, read from the swagger-ui-dist package",
  security: [],
  request: {
    params: z.object({ asset: z.enum(Object.keys(DOCS_ASSETS) as [string, ...string[]]) }),
  },
  responses: { 200: file('the file', '*/*') },
  invalidRequest: false,
  problems: ['not_found'],
});
