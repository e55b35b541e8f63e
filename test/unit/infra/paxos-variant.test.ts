import { describe, expect, it } from 'vitest';
import { variantMismatch } from '../../../tools/infra/paxos-variant.js';

describe('paxos variant check (bench:paxos)', () => {
  it('passes only when the MBean and the settings table both say the variant asked for', () => {
    expect(variantMismatch('v1', { jmx: 'v1', settings: 'v1' })).toBeNull();
    expect(variantMismatch('v2', { jmx: 'v2', settings: 'v2' })).toBeNull();
    expect(variantMismatch('v1', { jmx: 'v2', settings: 'v1' })).toMatch(/MBean says 'v2'/);
    expect(variantMismatch('v1', { jmx: 'v1', settings: 'v2' })).toMatch(/settings says 'v2'/);
    expect(variantMismatch('v2', { jmx: '', settings: undefined })).toMatch(
      /'\(nothing\)'.*'\(none\)'/,
    );
  });
});
