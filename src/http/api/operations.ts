/**
 * The API registry: every route of the app (createApp), keyed by operationId. The OpenAPI
 * document is built from it (document.ts), the typed client derives its types from it
 * (client/src/api.gen.ts, generated), and a test checks it against the app's routes both ways.
 */
import { changesOperations } from './ops-changes.js';
import { gridOperations } from './ops-grid.js';
import { operationsOperations } from './ops-ops.js';
import { postOperations } from './ops-posts.js';
import { serviceOperations } from './ops-service.js';

export const operations = {
  ...postOperations,
  ...gridOperations,
  ...changesOperations,
  ...serviceOperations,
  ...operationsOperations,
};

export type Operations = typeof operations;
export type OperationId = keyof Operations;
