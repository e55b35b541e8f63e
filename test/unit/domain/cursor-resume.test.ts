import { describe, expect, it } from 'vitest';
import { resumePosition } from '../../../src/domain/cursor-resume.js';

const cursor = { key: 900n, postId: 7n, version: 10n, generation: 1n };
const at = (version: bigint, generation = 1n) => ({ version, generation });

describe('resumePosition', () => {
  it('uses the cursor as is when nothing changed', () => {
    expect(
      resumePosition(cursor, at(10n), [{ postId: 7n, key: 950n, movedVersion: undefined }]),
    ).toEqual({
      key: 900n,
      postId: 7n,
    });
  });

  it("follows a relabel of the cursor's post (moved_version not newer than the cursor)", () => {
    expect(
      resumePosition(cursor, at(11n), [{ postId: 7n, key: 950n, movedVersion: undefined }]),
    ).toEqual({
      key: 950n,
      postId: 7n,
    });
    expect(resumePosition(cursor, at(11n), [{ postId: 7n, key: 950n, movedVersion: 9n }]).key).toBe(
      950n,
    );
  });

  it('keeps the cursor key when the post itself moved since, or its row is gone', () => {
    expect(resumePosition(cursor, at(12n), [{ postId: 7n, key: 10n, movedVersion: 12n }]).key).toBe(
      900n,
    );
    expect(resumePosition(cursor, at(12n), []).key).toBe(900n);
  });

  it('does not trust moved_version across generations', () => {
    expect(
      resumePosition(cursor, at(3n, 2n), [{ postId: 7n, key: 950n, movedVersion: undefined }]).key,
    ).toBe(900n);
  });
});
