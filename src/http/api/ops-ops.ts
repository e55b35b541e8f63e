/** The registry's moderation, flag, probe and documentation routes (routes/admin, flags, health, metrics, docs). */
import { z } from 'zod';
import { FLAG_NAMES } from '../../service/flags.js';
import { FlagBody } from '../routes/flags.js';
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
import type { OperationSpec } from './operation.js';

const POST = '4212987700602435584';

export const operationsOperations = {
  takedown: {
    method: 'post',
    path: '/v1/admin/posts/:post_id/takedown',
    tag: 'admin',
    summary: 'Moderation: remove a post from every grid, then delete it',
    auth: 'admin',
    params: { post_id: IdString },
    idempotent: true,
    ok: {
      status: 200,
      description: 'the grids it left, with their versions',
      schema: TakedownJson,
      example: {
        post_id: POST,
        grids: [{ profile_id: '4212987699721631744', grid_version: '10' }],
      },
    },
    problems: ['post_not_found', 'contention'],
  },
  listFlags: {
    method: 'get',
    path: '/v1/admin/flags',
    tag: 'admin',
    summary: 'The operational flags',
    auth: 'admin',
    ok: {
      status: 200,
      description: 'every flag and how soon every process follows a flip',
      schema: FlagsJson,
      example: {
        flags: [{ name: 'reads.overrides', enabled: true, stored: false }],
        refresh_bound_ms: 1000,
      },
    },
    problems: [],
  },
  setFlag: {
    method: 'put',
    path: '/v1/admin/flags/:name',
    tag: 'admin',
    summary: 'Switch an operational flag (an idempotent overwrite)',
    auth: 'admin',
    params: { name: z.enum(FLAG_NAMES) },
    body: FlagBody,
    requestExample: { enabled: false },
    ok: {
      status: 200,
      description: 'the flag as stored',
      schema: FlagJson,
      example: { name: 'writes.reorder', enabled: false, stored: true },
    },
    problems: ['flag_not_found'],
  },
  devToken: {
    method: 'post',
    path: '/dev/token',
    tag: 'operations',
    summary: 'Development only: a token for the demo profile (the web editor signs in with it)',
    description:
      'Exists only when the server generated its JWT secret (no `AUTH_JWT_SECRET` configured); a deployment with real secrets answers 404.',
    auth: 'none',
    invalidRequest: false,
    ok: {
      status: 200,
      description: 'a bearer token',
      schema: DevTokenJson,
      example: { token: 'eyJhbGciOiJIUzI1NiJ9…', profile_id: '4242', expires_in: 86400 },
    },
    problems: [],
  },
  healthz: {
    method: 'get',
    path: '/healthz',
    tag: 'operations',
    summary: 'Liveness',
    auth: 'none',
    ok: {
      status: 200,
      description: 'the process runs',
      schema: HealthJson,
      example: { status: 'ok' },
    },
    problems: [],
  },
  readyz: {
    method: 'get',
    path: '/readyz',
    tag: 'operations',
    summary:
      'Readiness (503 plain JSON with Retry-After while draining, while Cassandra does not answer, or without the replicas the consistency levels need)',
    auth: 'none',
    ok: {
      status: 200,
      description: 'Cassandra answers; Redis `ok` or `degraded`',
      schema: ReadyJson,
      example: { status: 'ready', checks: { cassandra: 'ok', redis: 'ok' } },
    },
    problems: [],
  },
  metrics: {
    method: 'get',
    path: '/metrics',
    tag: 'operations',
    summary: 'Prometheus metrics (text exposition)',
    auth: 'none',
    ok: { status: 200, description: 'the registry', contentType: 'text/plain' },
    problems: [],
  },
  openapi: {
    method: 'get',
    path: '/openapi.json',
    tag: 'operations',
    summary: 'This document (OpenAPI 3.1)',
    auth: 'none',
    ok: { status: 200, description: 'the document', contentType: 'application/json' },
    problems: [],
  },
  docs: {
    method: 'get',
    path: '/docs',
    tag: 'operations',
    summary: 'Interactive API documentation (Swagger UI, served locally)',
    auth: 'none',
    ok: { status: 200, description: 'the page', contentType: 'text/html' },
    problems: [],
  },
  docsAsset: {
    method: 'get',
    path: '/docs/:asset',
    tag: 'operations',
    summary: "Swagger UI's files, read from the swagger-ui-dist package",
    auth: 'none',
    params: { asset: z.enum(Object.keys(DOCS_ASSETS) as [string, ...string[]]) },
    invalidRequest: false,
    ok: { status: 200, description: 'the file', contentType: '*/*' },
    problems: ['not_found'],
  },
} as const satisfies Record<string, OperationSpec>;
