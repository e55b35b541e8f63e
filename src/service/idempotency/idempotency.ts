/**
 * Idempotency-Key handling for every write (docs/idempotency.md).
 *
 * `run()` wraps one write:
 *   1. read the grid's version and request ring (cheap static read) and answer at once if the
 *      ring already holds this key (replay) or holds it for another request (422);
 *   2. claim (scope, key) with INSERT IF NOT EXISTS; an existing record means a duplicate:
 *        different fingerprint → 422; done → stored response; in flight → ring check, then 409
 *        while the lease is live, or take the claim over (LWT) once it has expired;
 *   3. run the write with a ticket. Grid writes call `ticket.check(ring)` on every head they read
 *      and put `ticket.nextRing(...)` into their conditional batch, so the key is committed
 *      atomically with the change. Finding the key there throws `IdempotentReplay`. The ring
 *      keeps the planner result and version (small); the response is re-rendered from them with
 *      the caller's `render`, which sees the very same request (the fingerprint matched);
 *   4. record the response (done), or release the claim on failure (lease set to the past).
 *
 * Correctness rests on step 3: the record table is a convenience for retention and for 409/422;
 * "applied at most once" comes from the compare-and-set on the grid version plus the ring.
 */
import { randomUUID } from 'node:crypto';
import { DomainError } from '../../domain/errors.js';
import { checkRing, type RingEntry } from '../../domain/request-ring.js';
import type { IdempotencyRecord, IdempotencyStore } from '../../store/idempotency-store.js';
import type { StatementScope } from '../../store/statement-scope.js';
import type { WriteInterceptor } from '../write-line/write-line.js';
import {
  IdempotentReplay,
  keyUnknownIfUnavailable,
  makeTicket,
  mismatch,
  outcomeUnknown,
  SimulatedCrash,
  type IdempotencyTicket,
} from './idempotency-ticket.js';
import {
  decodeCommitted,
  decodeOutcome,
  encodeOutcome,
  hash16,
  validateKey,
  type CommittedOutcome,
  type StoredResponse,
} from './idempotency-request.js';

export { fingerprintRequest, type StoredResponse } from './idempotency-request.js';
export { SimulatedCrash, type IdempotencyTicket } from './idempotency-ticket.js';

/** Renders a write's response from its planner result and the version/generation it committed. */
export type ResponseRenderer = (
  result: unknown,
  version: bigint,
  generation: bigint,
) => StoredResponse;

export interface IdempotentCall {
  /** Who the key belongs to: the acting profile (0n for admin/moderation). */
  readonly scope: bigint;
  readonly key: string;
  /** `fingerprintRequest(...)` of the request. */
  readonly fingerprint: Buffer;
  /** The grid whose ring anchors the outcome (the acting profile's grid), when there is one. */
  readonly gridProfileId?: bigint;
  /** Renders the response of a committed outcome; required with `gridProfileId`. */
  readonly render?: ResponseRenderer;
  /** The request's statement scope (its deadline), which the recorded outcome is written in. */
  readonly statements?: StatementScope;
}

/** Reads a grid's head with its request ring (GridService.readHead). */
export type HeadReader = (
  profileId: bigint,
) => Promise<{ readonly version: bigint; readonly recentRequests?: readonly RingEntry[] }>;

export interface IdempotencyOptions {
  /** The grid head the ring is read from: the same query the writer's snapshot makes. */
  readonly heads: HeadReader;
  readonly ttlS: number;
  /** How long an in-flight claim blocks duplicates (409) before it may be taken over. */
  readonly leaseMs: number;
  readonly now?: () => number;
}

export class IdempotencyService {
  private readonly now: () => number;

  constructor(
    private readonly store: IdempotencyStore,
    private readonly opts: IdempotencyOptions,
  ) {
    this.now = opts.now ?? Date.now;
  }

  async run(
    call: IdempotentCall,
    exec: (ticket: IdempotencyTicket) => Promise<StoredResponse>,
  ): Promise<{ response: StoredResponse; replayed: boolean }> {
    const key = validateKey(call.key);
    const fp = call.fingerprint;
    const keyHash = hash16(`${call.scope}:${key}`);
    const fp16 = fp.subarray(0, 16).toString('hex');
    const grid = call.gridProfileId;

    // 1. Committed recently? The ring answers without touching the record table.
    const head =
      grid === undefined ? undefined : await keyUnknownIfUnavailable(this.readRing(grid));
    if (head) {
      const found = head.ring.find((e) => e.keyHash === keyHash);
      if (found && found.fingerprint !== fp16) throw mismatch();
      if (found) {
        const response = renderCommitted(call, decodeCommitted(found.outcome));
        return this.finish(call, key, fp, head.version, response);
      }
    }

    // 2. Claim, or learn about the earlier attempt.
    const owner = randomUUID();
    let claimedAt = head?.version ?? 0n;
    const mine = (): IdempotencyRecord => ({
      fingerprint: fp,
      state: 'in_flight',
      owner,
      leaseUntil: new Date(this.now() + this.opts.leaseMs),
      claimedAt,
    });
    const claim = await keyUnknownIfUnavailable(this.store.claim(call.scope, key, mine()));
    if (!claim.claimed) {
      const prev = claim.existing;
      if (!prev.fingerprint.equals(fp)) throw mismatch();
      if (prev.state === 'done') {
        return { response: { status: prev.status ?? 200, ...parseBody(prev) }, replayed: true };
      }
      claimedAt = prev.claimedAt;
      if (prev.leaseUntil.getTime() > this.now()) {
        throw new DomainError(
          'idempotency_in_flight',
          'a request with this Idempotency-Key is still being processed',
          {},
        );
      }
      // The earlier attempt died. Safe to run again only if it provably did not commit.
      if (head && checkRing(head.ring, keyHash, fp16, claimedAt).kind === 'unknown') {
        throw outcomeUnknown();
      }
      if (
        !(await keyUnknownIfUnavailable(this.store.takeOver(call.scope, key, prev.owner, mine())))
      ) {
        throw new DomainError(
          'idempotency_in_flight',
          'another retry took this Idempotency-Key over',
          {},
        );
      }
    }

    // 3. Run the write with the key riding in its compare-and-set.
    const ticket = makeTicket(keyHash, fp16, claimedAt, this.now, this.opts.ttlS * 1000);
    let response: StoredResponse;
    try {
      response = await exec(ticket);
    } catch (err) {
      if (err instanceof IdempotentReplay) {
        const replay = renderCommitted(call, err.outcome);
        return this.finish(call, key, fp, claimedAt, replay, owner);
      }
      if (err instanceof SimulatedCrash) throw err; // a dead process cleans nothing up
      // Release: the request did not commit (or committed and the ring will say so). Best effort.
      await this.store
        .release(call.scope, key, { ...mine(), leaseUntil: new Date(0) })
        .catch(() => undefined);
      throw err;
    }
    // 4. Record the outcome for the rest of the retention period.
    await this.store.put(call.scope, key, record(fp, owner, claimedAt, response), call.statements);
    return { response, replayed: false };
  }

  /**
   * The hook that puts `ticket` into a grid write on `profileId` (GridWriter's interceptor): on
   * every snapshot it reads the request ring and checks it (replay / 422 / unknown); the batch
   * that commits then carries the ring with this request added, its response rendered by `render`.
   */
  interceptor(ticket: IdempotencyTicket, profileId: bigint): WriteInterceptor {
    let ring: readonly RingEntry[] = [];
    return {
      // The ring came with the snapshot (one query): checked and extended on exactly the
      // version the compare-and-set is conditioned on.
      onSnapshot: (snapshot) => {
        ring = snapshot.head.recentRequests ?? [];
        ticket.check(ring);
      },
      extraStatics: (snapshot, nextVersion, result) => ({
        recentRequests: ticket.nextRing(ring, {
          result,
          version: nextVersion,
          generation: snapshot.head.generation,
        }),
      }),
    };
  }

  private async readRing(profileId: bigint): Promise<{ version: bigint; ring: RingEntry[] }> {
    const head = await this.opts.heads(profileId);
    return { version: head.version, ring: [...(head.recentRequests ?? [])] };
  }

  /** Records a replayed outcome as done (so later retries skip the ring) and returns it. */
  private async finish(
    call: IdempotentCall,
    key: string,
    fp: Buffer,
    claimedAt: bigint,
    response: StoredResponse,
    owner: string = randomUUID(),
  ): Promise<{ response: StoredResponse; replayed: boolean }> {
    await this.store.put(call.scope, key, record(fp, owner, claimedAt, response), call.statements);
    return { response, replayed: true };
  }
}

function record(
  fp: Buffer,
  owner: string,
  claimedAt: bigint,
  r: StoredResponse,
): IdempotencyRecord {
  return {
    fingerprint: fp,
    state: 'done',
    owner,
    leaseUntil: new Date(0),
    claimedAt,
    status: r.status,
    body: encodeOutcome(r),
  };
}

function parseBody(rec: IdempotencyRecord): { body: unknown; etag?: string } {
  const r = decodeOutcome(rec.body ?? '{"s":200,"b":null}');
  return { body: r.body, ...(r.etag ? { etag: r.etag } : {}) };
}

function renderCommitted(call: IdempotentCall, o: CommittedOutcome): StoredResponse {
  if (!call.render) throw new Error('idempotent grid writes need a render function');
  return call.render(o.result, o.version, o.generation);
}
