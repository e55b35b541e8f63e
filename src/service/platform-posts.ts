/**
 * What a platform's own services do on its users' grids, next to the user operations of
 * GridService: register and unregister posts under the platform's IDs (operations/register.ts,
 * the service routes), and import existing posts chunk by chunk (service/import/). Reached as
 * `GridService.platform`; the same ports, writer and caches as every operation.
 */
import type { Post } from '../domain/post.js';
import { importChunk } from './import/import-chunk.js';
import { registerPost, unregisterPost, type RegisterPorts } from './operations/register.js';
import type { WriteOptions } from './write-line/write-line.js';
import type { StatementScope } from '../store/statement-scope.js';
import { trackOp } from './write-line/write-op.js';

type PlatformPorts = RegisterPorts & Parameters<typeof importChunk>[0];

export class PlatformPosts {
  constructor(private readonly ports: PlatformPorts) {}

  /** A platform's post under its own ID; collaborators are invited as for a created post. */
  register(post: Post, options?: WriteOptions) {
    return registerPost(this.ports, post, options);
  }

  unregister(profileId: bigint, postId: bigint, options?: WriteOptions) {
    return unregisterPost(this.ports, profileId, postId, options);
  }

  /** One chunk of `regrid import`: existing posts of one profile onto its grid. */
  importChunk(profileId: bigint, posts: readonly Post[], scope?: StatementScope) {
    return trackOp('import', () => importChunk(this.ports, profileId, posts, scope));
  }
}
