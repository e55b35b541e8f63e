/**
 * The features of issue 3 on top of GridService: pins, archive, reset, collaborative posts,
 * takedown, the order resource, the chronological media list and the audit. Each operation lives
 * in its own module; this class only wires the extra stores and hands every module the same
 * dependencies (so every grid change goes through GridService's one writer).
 */
import type { Config } from '../config.js';
import type { BatchOrderRequest } from '../domain/batch-order.js';
import { consistencyOf, type Cql } from '../store/cassandra.js';
import { MovesStore } from '../store/moves-store.js';
import { ProfilesStore } from '../store/profiles-store.js';
import {
  archivePost,
  listArchive,
  unarchivePost,
  type ArchiveDeps,
  type UnarchivePosition,
} from './archive.js';
import { auditAll, auditProfile, type AuditDeps } from './audit.js';
import { patchOrder, readOrder } from './batch-order.js';
import {
  acceptInvite,
  createCollabPost,
  declineInvite,
  listInvites,
  removeCollaborator,
} from './collaborators.js';
import type { GridService } from './grid-service.js';
import type { WriteOptions } from './grid-writer.js';
import { listMedia, type MediaQuery } from './media.js';
import { setPins } from './pins.js';
import type { NewPost } from './posts-service.js';
import { resetGrid } from './reset.js';
import { takedownPost } from './takedown.js';
import { moveWithUndo, undoMove, type UndoDeps } from './undo.js';

export class FeatureService {
  readonly profiles: ProfilesStore;
  readonly moves: MovesStore;

  constructor(
    readonly grid: GridService,
    cql: Cql,
    config: Config,
  ) {
    const consistency = consistencyOf(config);
    this.profiles = new ProfilesStore(cql, consistency);
    // Undo stays possible as long as the move's Idempotency-Key would be remembered.
    this.moves = new MovesStore(cql, consistency, config.IDEMPOTENCY_TTL_S);
  }

  get deps(): ArchiveDeps & AuditDeps & UndoDeps {
    return {
      ...this.grid.deps,
      moves: this.moves,
      profiles: this.profiles,
      readPage: (q) => this.grid.readPage(q),
    };
  }

  setPins(profileId: bigint, postIds: readonly bigint[], options?: WriteOptions) {
    return setPins(this.deps, profileId, postIds, options);
  }

  archivePost(profileId: bigint, postId: bigint, options?: WriteOptions) {
    return archivePost(this.deps, profileId, postId, options);
  }

  unarchivePost(
    profileId: bigint,
    postId: bigint,
    position: UnarchivePosition,
    options?: WriteOptions,
  ) {
    return unarchivePost(this.deps, profileId, postId, position, options);
  }

  reset(profileId: bigint, options?: WriteOptions) {
    return resetGrid(this.deps, profileId, options);
  }

  createPost(
    authorId: bigint,
    input: NewPost & { readonly collaborators: readonly bigint[] },
    options?: WriteOptions,
  ) {
    return createCollabPost(this.deps, authorId, input, options);
  }

  removeCollaborator(
    actorId: bigint,
    postId: bigint,
    collaboratorId: bigint,
    options?: WriteOptions,
  ) {
    return removeCollaborator(this.deps, actorId, postId, collaboratorId, options);
  }

  /** Deletes a post the author owns from every grid (posts-service.ts). */
  deletePost(profileId: bigint, postId: bigint, options?: WriteOptions) {
    return this.grid.deletePost(profileId, postId, options);
  }

  listArchive(profileId: bigint, limit: number, before?: bigint) {
    return listArchive(this.deps, profileId, limit, before);
  }

  listInvites(profileId: bigint) {
    return listInvites(this.deps, profileId);
  }

  acceptInvite(profileId: bigint, postId: bigint, options?: WriteOptions) {
    return acceptInvite(this.deps, profileId, postId, options);
  }

  declineInvite(profileId: bigint, postId: bigint, options?: WriteOptions) {
    return declineInvite(this.deps, profileId, postId, options);
  }

  /** A move that records how to undo it; `moveId` goes into the response. */
  move(
    profileId: bigint,
    postId: bigint,
    after: bigint | null,
    moveId: string,
    options?: WriteOptions,
  ) {
    return moveWithUndo(this.deps, this.grid, profileId, postId, after, moveId, options);
  }

  undoMove(profileId: bigint, moveId: string, options?: WriteOptions) {
    return undoMove(this.deps, profileId, moveId, options);
  }

  takedown(postId: bigint) {
    return takedownPost(this.deps, postId);
  }

  readOrder(profileId: bigint) {
    return readOrder(this.deps, profileId);
  }

  patchOrder(
    profileId: bigint,
    ifMatch: string | undefined,
    request: BatchOrderRequest,
    options?: WriteOptions,
  ) {
    return patchOrder(this.deps, profileId, ifMatch, request, options);
  }

  listMedia(q: MediaQuery) {
    return listMedia(this.deps, q);
  }

  auditProfile(profileId: bigint) {
    return auditProfile(this.deps, profileId);
  }

  auditAll(only?: readonly bigint[]) {
    return auditAll(this.deps, only);
  }
}
