/**
 * Entity tags for order-only resources (GET/PATCH /v1/me/grid/order, design article §5.3).
 *
 * Format: the strong tag `"<generation>.<version>"`, e.g. `"1.42"`, decimals without leading zeros.
 * Only a resource whose body is nothing but the order may use it: post bodies can change while the
 * grid version does not, and a version ETag on them would make revalidation keep stale content
 * (RFC 9110 §8.8.1). Responses with post bodies carry the version in the body instead.
 *
 * Comparison rules (RFC 9110 §8.8.3.2, §13.1.1, §13.1.2):
 * - If-Match uses STRONG comparison: a weak tag (`W/"1.42"`) never matches, so a client that sends
 *   one gets 412, never a silent write. `*` matches (a grid always has a current representation).
 * - If-None-Match uses WEAK comparison: `W/"1.42"` matches the current `"1.42"` (intermediaries may
 *   weaken tags, e.g. after compression). `*` matches.
 * - Syntactically valid tags that are not ours (`"abc"`, `"01.2"`) are kept and never match.
 * - A header that is not a `*` or a comma-separated list of quoted tags (e.g. a bare `42`) is a
 *   malformed request: DomainError('invalid_request'), rather than being guessed at.
 */
import { DomainError } from './errors.js';
import { MAX_ID } from './ids.js';
import { compareGridVersions, type GridVersion } from './grid-version.js';

export interface EntityTag {
  readonly weak: boolean;
  /** The grid version when the opaque part is one of ours, else undefined (never matches). */
  readonly version: GridVersion | undefined;
}

const DECIMAL = /^(0|[1-9][0-9]{0,18})$/;
// entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE; etagc excludes DQUOTE, space and controls (RFC 9110).
const TAG = /[ \t]*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"[ \t]*(?:,|$)/y;

/** `{generation: 1n, version: 42n}` → `"1.42"` (quotes included: it is the header value). */
export function formatEtag(v: GridVersion): string {
  if (v.generation < 1n || v.generation > MAX_ID || v.version < 0n || v.version > MAX_ID) {
    throw new RangeError('grid version out of range');
  }
  return `"${v.generation}.${v.version}"`;
}

/** Parses one entity tag; undefined when it is malformed. */
export function parseEtag(tag: string): EntityTag | undefined {
  const list = scan(tag.trim());
  return list?.length === 1 ? list[0] : undefined;
}

/** Parses an If-Match / If-None-Match value: `*` or a list of entity tags. */
export function parseEtagHeader(header: string): '*' | EntityTag[] {
  const value = header.trim();
  if (value === '*') return '*';
  const list = scan(value);
  if (!list || list.length === 0) {
    throw new DomainError('invalid_request', 'malformed entity-tag list (tags must be quoted)', {
      header: value.slice(0, 100),
    });
  }
  return list;
}

/** If-Match: true when the precondition holds (strong comparison). */
export function ifMatchSatisfied(header: string, current: GridVersion): boolean {
  const tags = parseEtagHeader(header);
  return tags === '*' || tags.some((t) => !t.weak && sameVersion(t.version, current));
}

/** If-None-Match: true when some listed tag matches (weak comparison), i.e. answer 304. */
export function ifNoneMatchMatches(header: string, current: GridVersion): boolean {
  const tags = parseEtagHeader(header);
  return tags === '*' || tags.some((t) => sameVersion(t.version, current));
}

const sameVersion = (v: GridVersion | undefined, current: GridVersion) =>
  v !== undefined && compareGridVersions(v, current) === 0;

/** Returns the tags of a comma-separated list, or undefined on any syntax error. */
function scan(value: string): EntityTag[] | undefined {
  const out: EntityTag[] = [];
  let at = 0;
  while (at < value.length) {
    if (/[ \t,]/.test(value[at]!)) {
      at += 1; // RFC 9110 §5.6.1: recipients accept empty list elements
      continue;
    }
    TAG.lastIndex = at;
    const m = TAG.exec(value);
    if (!m) return undefined;
    out.push({ weak: m[1] !== undefined, version: versionOf(m[2]!) });
    at = TAG.lastIndex;
  }
  return out;
}

function versionOf(opaque: string): GridVersion | undefined {
  const parts = opaque.split('.');
  if (parts.length !== 2 || !parts.every((p) => DECIMAL.test(p))) return undefined;
  const generation = BigInt(parts[0]!);
  const version = BigInt(parts[1]!);
  if (generation < 1n || generation > MAX_ID || version > MAX_ID) return undefined;
  return { generation, version };
}
