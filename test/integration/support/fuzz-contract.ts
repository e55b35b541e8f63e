/**
 * What the HTTP fuzz (test/integration/http-fuzz.test.ts) knows the server must refuse, written
 * from the API contract and independently of src/: an ID that is not canonical decimal in
 * 1..2^63-1, a move_id that is not a UUID, a media time bound outside the instants IDs encode.
 * Whatever else is wrong with such a request, the answer must be a 4xx.
 */
const canonicalId = (v: string) => /^[1-9][0-9]{0,18}$/.test(v) && BigInt(v) < 1n << 63n;
const FIRST_MS = Date.UTC(2011, 0, 1);
const LAST_MS = FIRST_MS + 2 ** 40 - 1;
function idTime(v: string): boolean {
  const m = /^(0|[1-9][0-9]{0,14})(?:\.([0-9]{1,3}))?$/.exec(v);
  const ms = m ? Number(m[1]) * 1000 + Number((m[2] ?? '').padEnd(3, '0')) : NaN;
  return ms >= FIRST_MS && ms <= LAST_MS;
}
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when the request names an ID or time the contract refuses, so it must be a 4xx. */
export function mustRefuse(
  template: string,
  slots: Record<string, string>,
  query: string,
): boolean {
  for (const [name, value] of Object.entries(slots)) {
    if (!template.includes(`{${name}}`)) continue;
    if (name === 'uuid' ? !UUID.test(value) : !canonicalId(value)) return true;
  }
  if (template.endsWith('/media')) {
    const q = new URLSearchParams(query.slice(1));
    const since = q.get('since');
    const until = q.get('until');
    const before = q.get('before');
    if (since !== null && !idTime(since)) return true;
    if (until !== null && !idTime(until)) return true;
    if (before !== null && !canonicalId(before)) return true;
  }
  return false;
}
