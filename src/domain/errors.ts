/**
 * Domain errors: a stable string code plus optional details. The domain never knows about
 * HTTP; `src/http/problem.ts` maps each code to a status and an RFC 9457 problem `type`.
 */
export type ErrorCode =
  | 'invalid_request' // malformed input (400)
  | 'bad_cursor' // cursor failed its signature or decoding (400)
  | 'unauthorized' // missing or bad credentials (401)
  | 'forbidden' // authenticated but not allowed (403)
  | 'post_not_found' // the post does not exist (404)
  | 'post_not_on_grid' // the post exists but is not on this grid (404)
  | 'flag_not_found' // no operational flag of that name (404)
  | 'anchor_not_on_grid' // `after` is not on the grid any more (409, with current version)
  | 'post_pinned' // a pinned post cannot be moved (409)
  | 'conflict' // other state conflict (409)
  | 'idempotency_in_flight' // same Idempotency-Key still being processed (409)
  | 'precondition_failed' // If-Match no longer matches (412)
  | 'idempotency_mismatch' // same Idempotency-Key, different request (422)
  | 'precondition_required' // If-Match missing (428)
  | 'rate_limited' // too many moves (429)
  | 'contention' // compare-and-set lost too often (503, Retry-After)
  | 'key_space_exhausted' // no room left for keys even after a whole-grid relabel (409)
  | 'history_gone' // the change log no longer reaches back that far: read the grid (410)
  | 'post_removed' // the post was deleted or taken down: its ID is spent for good (410)
  | 'feature_disabled' // switched off by an operational flag (503, Retry-After)
  | 'wrong_region' // the grid's home region is another one; nothing was applied (421)
  | 'unavailable' // a backing store is down; the request's writes were not applied (503)
  | 'write_outcome_unknown'; // a write may or may not have been applied (503)

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    /** `cause`: the underlying error, for the logs (never sent to the client). */
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'DomainError';
  }
}

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;
