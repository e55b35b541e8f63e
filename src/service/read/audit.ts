/**
 * The periodic audit (design §8, `regrid audit`): for one profile or every profile, read the grid
 * as stored and report what should never happen (domain/audit.ts says what and why):
 * duplicate effective keys outside pins, overrides or pins pointing at posts not on the grid,
 * and, for profiles without overrides or pins, any difference between the real merged read path
 * (the page reader) and the plain chronological list.
 */
import type { ServiceDeps } from '../deps.js';
import {
  auditGrid,
  compareWithChronological,
  isChronological,
  type AuditFinding,
} from '../../domain/audit.js';

/** How many posts of a chronological grid the merged read is compared on. */
export const MERGED_CHECK_LIMIT = 100;

export interface ProfileAudit {
  readonly profileId: bigint;
  readonly findings: readonly AuditFinding[];
}

export async function auditProfile(deps: ServiceDeps, profileId: bigint): Promise<ProfileAudit> {
  // Through the reader: a grid whose last membership effects were not applied is rolled forward.
  const snap = await deps.reader.readOverrides(profileId);
  const postIds: bigint[] = [];
  for await (const id of deps.store.streamChronological(profileId, { pageSize: 1000 }))
    postIds.push(id);
  const grid = {
    postIds,
    overrides: snap.rows,
    pins: snap.head.pins,
    postCount: snap.head.postCount,
  };
  const findings = auditGrid(grid);
  if (isChronological(grid)) {
    const page = await deps.readPage({ profileId, limit: MERGED_CHECK_LIMIT });
    findings.push(
      ...compareWithChronological(
        page.entries.map((e) => e.postId),
        postIds.slice(0, MERGED_CHECK_LIMIT),
      ),
    );
  }
  return { profileId, findings };
}

/**
 * Audits every profile (or the given ones); yields only profiles with findings. Then scans the
 * post bodies (a full scan, paged) for live posts of those profiles that no grid holds and no
 * archive keeps: the one loss a per-grid check cannot see.
 */
export async function* auditAll(
  deps: ServiceDeps,
  only?: readonly bigint[],
): AsyncGenerator<ProfileAudit, { profiles: number }, undefined> {
  let profiles = 0;
  const ids = only ?? deps.profiles.listProfiles();
  for await (const profileId of ids) {
    profiles += 1;
    const audit = await auditProfile(deps, profileId);
    if (audit.findings.length > 0) yield audit;
  }
  const wanted = only ? new Set(only) : undefined;
  const orphans = new Map<bigint, AuditFinding[]>();
  for await (const post of deps.profiles.listLivePosts()) {
    if (wanted && !wanted.has(post.authorId)) continue;
    if (await isHeld(deps, post.authorId, post.postId)) continue;
    const list = orphans.get(post.authorId) ?? [];
    list.push({ kind: 'orphan_post', postId: post.postId, authorId: post.authorId });
    orphans.set(post.authorId, list);
  }
  for (const [profileId, findings] of orphans) yield { profileId, findings };
  return { profiles };
}

/** On the author's grid or in its archive (read after rolling the grid forward). */
async function isHeld(deps: ServiceDeps, profileId: bigint, postId: bigint): Promise<boolean> {
  await deps.reader.readHead(profileId);
  const [onGrid, archived] = await Promise.all([
    deps.store.hasGridRow(profileId, postId),
    deps.archive.get(profileId, postId),
  ]);
  return onGrid || archived !== undefined;
}
