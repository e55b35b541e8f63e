/**
 * What a platform's own services do on its users' grids, next to the user operations of
 * GridService: register and unregister posts under the platform's IDs (ops/register.ts, the
 * service routes), and import existing posts chunk by chunk (service/import/). Reached as
 * `GridService.platform`; the same dependencies, writer and caches as every operation.
 */
import type { ServiceCaches } from '../cache/caches.js';
import type { Post } from '../domain/post.js';
import type { ServiceDeps } from './deps.js';
import { importChunk } from './import/import-chunk.js';
import { inviteCollaborators } from './ops/collaborators.js';
import * as register from './ops/register.js';
import type { WriteOptions } from './write-line/write-line.js';
import { trackOp } from './write-line/write-op.js';

export class PlatformPosts {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly caches: ServiceCaches | undefined,
  ) {}

  /** A platform's post under its own ID; collaborators are invited as for a created post. */
  register(post: Post, options?: WriteOptions) {
    const invite = (postId: bigint, authorId: bigint, cs: readonly bigint[]) =>
      inviteCollaborators(this.deps, postId, authorId, cs);
    return trackOp('register', () => register.registerPost(this.deps, post, invite, options));
  }

  async unregister(profileId: bigint, postId: bigint, options?: WriteOptions) {
    const out = await trackOp('unregister', () =>
      register.unregisterPost(this.deps, profileId, postId, options),
    );
    await this.caches?.posts.forget([postId]);
    return out;
  }

  /** One chunk of `regrid import`: existing posts of one profile onto its grid. */
  importChunk(profileId: bigint, posts: readonly Post[]) {
    return trackOp('import', () => importChunk(this.deps, profileId, posts));
  }
}
