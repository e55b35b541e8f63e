import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { noneMatch } from '../../../src/http/conditional.js';

describe('If-None-Match against a strong ETag', () => {
  const tag = '"abcDEF0123456789_-abcd"';
  it('matches the tag, a weak copy of it, a list holding it, and *', () => {
    expect(noneMatch(tag, tag)).toBe(true);
    expect(noneMatch(`W/${tag}`, tag)).toBe(true);
    expect(noneMatch(`"x", ${tag} , "y"`, tag)).toBe(true);
    expect(noneMatch(' * ', tag)).toBe(true);
  });
  it('does not match no header, other tags, or the tag without quotes', () => {
    expect(noneMatch(undefined, tag)).toBe(false);
    expect(noneMatch('"x", "y"', tag)).toBe(false);
    expect(noneMatch(tag.slice(1, -1), tag)).toBe(false);
    expect(noneMatch('', tag)).toBe(false);
  });
  it('matches a list exactly when one of its members is the tag', () => {
    const member = fc.stringMatching(/^"[A-Za-z0-9_-]{1,22}"$/);
    fc.assert(
      fc.property(fc.array(member, { maxLength: 5 }), member, (list, etag) => {
        expect(noneMatch(list.join(', ') || undefined, etag)).toBe(list.includes(etag));
      }),
    );
  });
});
