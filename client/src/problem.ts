/**
 * A problem+json answer (RFC 9457) as a typed error: `status`, the stable `type` URI, `title`,
 * `detail`, the `code`, the extension members (e.g. `grid_version` on a 409) and `Retry-After`.
 */
import type { ProblemCode } from './types.js';

export interface ProblemBody {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail?: string;
  readonly code: ProblemCode;
  readonly [extension: string]: unknown;
}

export class RegridError extends Error {
  readonly status: number;
  readonly type: string;
  readonly title: string;
  readonly detail: string | undefined;
  /** The server's code; `unexpected_response` = not problem+json; `network_error` = no answer. */
  readonly code: ProblemCode | 'unexpected_response' | 'network_error';
  /** Seconds from `Retry-After` (503, 429, 409 in flight), when given. */
  readonly retryAfter: number | undefined;

  constructor(
    readonly problem: ProblemBody,
    retryAfter?: string | null,
  ) {
    super(problem.detail ? `${problem.title}: ${problem.detail}` : problem.title);
    this.name = 'RegridError';
    this.status = problem.status;
    this.type = problem.type;
    this.title = problem.title;
    this.detail = problem.detail;
    this.code = problem.code;
    const s = retryAfter ? Number(retryAfter) : NaN;
    this.retryAfter = Number.isFinite(s) ? s : undefined;
  }

  /** An answer that is not problem+json (a proxy's 502 page, say). */
  static unexpected(status: number, text: string): RegridError {
    return new RegridError({
      type: 'about:blank',
      title: `unexpected ${status} response`,
      status,
      detail: text.slice(0, 200),
      code: 'unexpected_response' as ProblemCode,
    });
  }

  /** No answer at all (refused, reset, DNS): status 0; the fetch error is the `cause`. */
  static network(cause: unknown): RegridError {
    const err = new RegridError({
      type: 'about:blank',
      title: 'The server did not answer',
      status: 0,
      detail: cause instanceof Error ? cause.message : String(cause),
      code: 'network_error' as ProblemCode,
    });
    (err as { cause?: unknown }).cause = cause;
    return err;
  }
}

export const isRegridError = (e: unknown, code?: RegridError['code']): e is RegridError =>
  e instanceof RegridError && (code === undefined || e.code === code);
