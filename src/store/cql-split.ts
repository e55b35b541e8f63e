/**
 * Splits a `.cql` migration file into statements.
 *
 * A plain `split(';')` breaks on semicolons inside comments and string literals, and on comments
 * that mention a semicolon. This is a small scanner that understands the lexical forms CQL has:
 * `--` and `//` line comments, `/* … *\/` block comments, `'…'` strings (with `''` as an escaped
 * quote), `"…"` quoted identifiers (with `""`) and `$$…$$` string literals. Comments are dropped;
 * everything else is kept verbatim. Empty statements (`;;`) vanish.
 *
 * Example: `CREATE TABLE t (a text); -- a; b\nINSERT INTO t (a) VALUES ('x;y');` gives two
 * statements, the second one still containing `'x;y'`.
 */
export function splitCqlStatements(source: string): string[] {
  const out: string[] = [];
  let current = '';
  let i = 0;
  const n = source.length;

  const flush = () => {
    const stmt = current.trim();
    if (stmt) out.push(stmt);
    current = '';
  };

  while (i < n) {
    const ch = source[i]!;
    const next = source[i + 1];
    if ((ch === '-' && next === '-') || (ch === '/' && next === '/')) {
      const end = source.indexOf('\n', i);
      i = end === -1 ? n : end; // keep the newline itself as whitespace
      continue;
    }
    if (ch === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      if (end === -1) throw new Error('unterminated block comment in CQL');
      current += ' ';
      i = end + 2;
      continue;
    }
    if (ch === "'" || ch === '"') {
      const end = quotedEnd(source, i, ch);
      current += source.slice(i, end);
      i = end;
      continue;
    }
    if (ch === '$' && next === '$') {
      const end = source.indexOf('$$', i + 2);
      if (end === -1) throw new Error('unterminated $$ literal in CQL');
      current += source.slice(i, end + 2);
      i = end + 2;
      continue;
    }
    if (ch === ';') {
      flush();
      i += 1;
      continue;
    }
    current += ch;
    i += 1;
  }
  flush();
  return out;
}

/** Index just past the closing quote of a literal opened at `start`; a doubled quote escapes. */
function quotedEnd(source: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < source.length) {
    if (source[i] === quote) {
      if (source[i + 1] === quote) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i += 1;
  }
  throw new Error(`unterminated ${quote === "'" ? 'string' : 'quoted identifier'} in CQL`);
}
