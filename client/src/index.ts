/**
 * The typed regrid client: `import { createClient } from '@regrid/client'` (docs/client.md).
 *
 *   const client = createClient({ baseUrl: 'http://127.0.0.1:8080', token });
 *   const { post } = await client.createPost({ caption: 'sunset' });
 *   await client.move(post.id, null);                 // own Idempotency-Key per move
 *   for await (const item of client.grid(profileId)) console.log(item.id);
 *
 * Every route is also reachable through `client.call(operationId, input)`, typed from the
 * server's OpenAPI document (api.gen.ts). IDs are decimal strings; problems are thrown as RegridError.
 */
import { OrderEditor } from './order-editor.js';
import { makeCall, type ClientOptions } from './transport.js';
import type {
  BodyOf,
  CallInput,
  GridItem,
  GridPage,
  ParamsOf,
  Post,
  QueryOf,
  ResultOf,
} from './types.js';

export { RegridError, isRegridError, type ProblemBody } from './problem.js';
export { OrderEditor, applyMove } from './order-editor.js';
export type { RecordedMove, SaveOptions, SaveResult, VanishedMove } from './order-editor.js';
export type { ClientOptions, Token } from './transport.js';
export { randomKey } from './keys.js';
export type * from './types.js';

type WriteOpts = { readonly idempotencyKey?: string | false };

export function createClient(options: ClientOptions) {
  const call = makeCall(options);
  const data = async <K extends Parameters<typeof call>[0]>(op: K, input?: CallInput<K>) => {
    const r = await call(op, input);
    return r.data as ResultOf<K>;
  };
  const id = (post_id: string) => ({ params: { post_id } });

  async function* gridPages(
    profileId: string,
    query: Omit<QueryOf<'readGrid'>, 'cursor'> = {},
  ): AsyncGenerator<GridPage> {
    let cursor: string | undefined;
    do {
      const page = await data('readGrid', {
        params: { profile_id: profileId },
        query: { ...query, ...(cursor ? { cursor } : {}) },
      });
      yield page;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  return {
    call,

    // Posts
    createPost: (body: BodyOf<'createPost'> = {}, o: WriteOpts = {}) =>
      data('createPost', { body, ...o }),
    getPost: (postId: string): Promise<Post> => data('getPost', id(postId)),
    deletePost: (postId: string, o: WriteOpts = {}) => data('deletePost', { ...id(postId), ...o }),
    archivePost: (postId: string, o: WriteOpts = {}) =>
      data('archivePost', { ...id(postId), ...o }),
    unarchivePost: (postId: string, position?: 'previous' | 'chronological', o: WriteOpts = {}) =>
      data('unarchivePost', { ...id(postId), ...(position ? { body: { position } } : {}), ...o }),
    removeCollaborator: (postId: string, profileId: string, o: WriteOpts = {}) =>
      data('removeCollaborator', { params: { post_id: postId, profile_id: profileId }, ...o }),

    // The caller's archive and invitations
    archivePage: (query: QueryOf<'listArchive'> = {}) => data('listArchive', { query }),
    async *archived(query: Omit<QueryOf<'listArchive'>, 'before'> = {}) {
      let before: string | undefined;
      do {
        const page = await data('listArchive', {
          query: { ...query, ...(before ? { before } : {}) },
        });
        yield* page.data;
        before = page.paging.next_before ?? undefined;
      } while (before);
    },
    invites: () => data('listInvites'),
    acceptInvite: (postId: string, o: WriteOpts = {}) =>
      data('acceptInvite', { ...id(postId), ...o }),
    declineInvite: (postId: string, o: WriteOpts = {}) =>
      data('declineInvite', { ...id(postId), ...o }),

    // Chronological media
    mediaPage: (profileId: string, query: QueryOf<'listMedia'> = {}) =>
      data('listMedia', { params: { profile_id: profileId }, query }),
    async *media(profileId: string, query: Omit<QueryOf<'listMedia'>, 'before'> = {}) {
      let q: QueryOf<'listMedia'> | undefined = query;
      while (q) {
        const page: ResultOf<'listMedia'> = await data('listMedia', {
          params: { profile_id: profileId },
          query: q,
        });
        yield* page.data;
        // paging.next is the next page's URL: carry its query string over.
        q = page.paging.next
          ? Object.fromEntries(new URL(page.paging.next, 'http://x').searchParams)
          : undefined;
      }
    },

    // The grid
    /** One anchor-based move; a fresh Idempotency-Key unless `idempotencyKey` is given. */
    move: (postId: string, after: string | null, o: WriteOpts = {}) =>
      data('move', { body: { post_id: postId, after }, ...o }),
    undo: (moveId: string, o: WriteOpts = {}) =>
      data('undoMove', { params: { move_id: moveId }, ...o }),
    gridPage: (profileId: string, query: QueryOf<'readGrid'> = {}) =>
      data('readGrid', { params: { profile_id: profileId }, query }),
    gridPages,
    /** Every post of the grid in display order, page by page by cursor. */
    async *grid(
      profileId: string,
      query: Omit<QueryOf<'readGrid'>, 'cursor'> = {},
    ): AsyncGenerator<GridItem> {
      for await (const page of gridPages(profileId, query)) yield* page.items;
    },
    setPins: (postIds: string[], o: WriteOpts = {}) =>
      data('setPins', { body: { post_ids: postIds }, ...o }),
    reset: (o: WriteOpts = {}) => data('resetGrid', o),

    // The order resource and the batch editor flow (design §5.3)
    async order() {
      const r = await call('getOrder');
      if (r.status === 304) throw new Error('unexpected 304');
      return { ...r.data, etag: r.etag ?? '' };
    },
    async patchOrder(body: BodyOf<'patchOrder'>, ifMatch: string, o: WriteOpts = {}) {
      const r = await call('patchOrder', { body, ifMatch, ...o });
      return { ...r.data, etag: r.etag ?? '' };
    },
    /** GET order → record moves → `save()`: PATCH with If-Match, on 412 reload and replay. */
    editOrder: () => OrderEditor.open(call),

    admin: {
      takedown: (postId: string, o: WriteOpts = {}) => data('takedown', { ...id(postId), ...o }),
      flags: () => data('listFlags'),
      setFlag: (name: ParamsOf<'setFlag'>['name'], enabled: boolean) =>
        data('setFlag', { params: { name }, body: { enabled } }),
    },
    health: () => data('healthz'),
    ready: () => data('readyz'),
  };
}

export type RegridClient = ReturnType<typeof createClient>;
