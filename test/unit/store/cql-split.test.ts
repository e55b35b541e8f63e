import { describe, expect, it } from 'vitest';
import { splitCqlStatements } from '../../../src/store/cql-split.js';

describe('splitCqlStatements', () => {
  it.each([
    ['plain statements', 'A; B;', ['A', 'B']],
    ['no trailing semicolon', 'A;\nB', ['A', 'B']],
    ['empty statements vanish', ';; A ;;', ['A']],
    ['line comments (-- and //) with semicolons', '-- x; y\nA; // z; w\nB;', ['A', 'B']],
    ['block comments with semicolons', 'A /* ; */ X; /* ;\n; */ B;', ['A   X', 'B']],
    ["strings keep semicolons and '' escapes", "INSERT 'a;b''c'; B", ["INSERT 'a;b''c'", 'B']],
    ['quoted identifiers', 'SELECT "we;ird""x" FROM t; B', ['SELECT "we;ird""x" FROM t', 'B']],
    ['$$ literals', 'CREATE FUNCTION f AS $$ a; b $$; B', ['CREATE FUNCTION f AS $$ a; b $$', 'B']],
    [
      'comment markers inside strings are text',
      "A '-- not; a comment'; B",
      ["A '-- not; a comment'", 'B'],
    ],
  ])('%s', (_name, input, expected) => {
    expect(splitCqlStatements(input)).toEqual(expected);
  });

  it('refuses unterminated literals and comments', () => {
    expect(() => splitCqlStatements("A 'open;")).toThrow(/unterminated string/);
    expect(() => splitCqlStatements('A /* open;')).toThrow(/unterminated block comment/);
    expect(() => splitCqlStatements('A $$ open;')).toThrow(/unterminated \$\$/);
  });
});
