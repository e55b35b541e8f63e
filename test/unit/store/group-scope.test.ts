/** The statement scope of a group's batch (store/group-scope.ts), as the Cql wrapper uses it. */
import { describe, expect, it } from 'vitest';
import { StatementScope } from '../../../src/store/statement-scope.js';
import { GroupScope } from '../../../src/store/group-scope.js';

describe('GroupScope', () => {
  it('a batch sent counts as a write of every request; a lost one is taken back from each', () => {
    const a = new StatementScope();
    const b = new StatementScope();
    const g = new GroupScope([a, b]);
    g.writeSent();
    expect([g.mayHaveWritten, a.mayHaveWritten, b.mayHaveWritten]).toEqual([true, true, true]);
    g.writeNotApplied();
    expect([g.mayHaveWritten, a.mayHaveWritten, b.mayHaveWritten]).toEqual([false, false, false]);
  });

  it('is sealed while any request is', () => {
    const a = new StatementScope();
    const b = new StatementScope();
    const g = new GroupScope([a, b]);
    expect(g.sealed).toBe(false);
    b.seal();
    expect(g.sealed).toBe(true);
    expect(() => g.seal()).toThrow();
    expect(new GroupScope([]).sealed).toBe(false);
  });
});
