/**
 * Method, path, auth and Idempotency-Key of every route, for the client at run time. The
 * `RouteTable` type makes the compiler check each entry against the server's registry, and
 * requires one for every operation, so the table cannot drift from the API.
 */
import type { RouteTable } from './types.js';

export const ROUTES: RouteTable = {
  createPost: { method: 'POST', path: '/v1/me/posts', auth: 'user', idempotent: true },
  getPost: { method: 'GET', path: '/v1/posts/:post_id', auth: 'none', idempotent: false },
  deletePost: { method: 'DELETE', path: '/v1/me/posts/:post_id', auth: 'user', idempotent: true },
  archivePost: {
    method: 'POST',
    path: '/v1/me/posts/:post_id/archive',
    auth: 'user',
    idempotent: true,
  },
  unarchivePost: {
    method: 'POST',
    path: '/v1/me/posts/:post_id/unarchive',
    auth: 'user',
    idempotent: true,
  },
  removeCollaborator: {
    method: 'DELETE',
    path: '/v1/me/posts/:post_id/collaborators/:profile_id',
    auth: 'user',
    idempotent: true,
  },
  registerPost: {
    method: 'PUT',
    path: '/v1/profiles/:profile_id/posts/:post_id',
    auth: 'service',
    idempotent: false,
  },
  unregisterPost: {
    method: 'DELETE',
    path: '/v1/profiles/:profile_id/posts/:post_id',
    auth: 'service',
    idempotent: false,
  },
  listArchive: { method: 'GET', path: '/v1/me/archive', auth: 'user', idempotent: false },
  listInvites: { method: 'GET', path: '/v1/me/invites', auth: 'user', idempotent: false },
  acceptInvite: {
    method: 'POST',
    path: '/v1/me/invites/:post_id/accept',
    auth: 'user',
    idempotent: true,
  },
  declineInvite: {
    method: 'POST',
    path: '/v1/me/invites/:post_id/decline',
    auth: 'user',
    idempotent: true,
  },
  listMedia: {
    method: 'GET',
    path: '/v1/profiles/:profile_id/media',
    auth: 'none',
    idempotent: false,
  },
  move: { method: 'POST', path: '/v1/me/grid/moves', auth: 'user', idempotent: true },
  undoMove: {
    method: 'POST',
    path: '/v1/me/grid/moves/:move_id/undo',
    auth: 'user',
    idempotent: true,
  },
  readGrid: {
    method: 'GET',
    path: '/v1/profiles/:profile_id/grid',
    auth: 'none',
    idempotent: false,
  },
  setPins: { method: 'PUT', path: '/v1/me/grid/pins', auth: 'user', idempotent: true },
  resetGrid: { method: 'POST', path: '/v1/me/grid/reset', auth: 'user', idempotent: true },
  getOrder: { method: 'GET', path: '/v1/me/grid/order', auth: 'user', idempotent: false },
  patchOrder: { method: 'PATCH', path: '/v1/me/grid/order', auth: 'user', idempotent: true },
  takedown: {
    method: 'POST',
    path: '/v1/admin/posts/:post_id/takedown',
    auth: 'admin',
    idempotent: true,
  },
  listFlags: { method: 'GET', path: '/v1/admin/flags', auth: 'admin', idempotent: false },
  setFlag: { method: 'PUT', path: '/v1/admin/flags/:name', auth: 'admin', idempotent: false },
  devToken: { method: 'POST', path: '/dev/token', auth: 'none', idempotent: false },
  healthz: { method: 'GET', path: '/healthz', auth: 'none', idempotent: false },
  readyz: { method: 'GET', path: '/readyz', auth: 'none', idempotent: false },
  metrics: { method: 'GET', path: '/metrics', auth: 'none', idempotent: false },
  openapi: { method: 'GET', path: '/openapi.json', auth: 'none', idempotent: false },
  docs: { method: 'GET', path: '/docs', auth: 'none', idempotent: false },
  docsAsset: { method: 'GET', path: '/docs/:asset', auth: 'none', idempotent: false },
};
