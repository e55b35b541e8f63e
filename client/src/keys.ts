/**
 * Idempotency-Keys: 122 random bits in the UUID v4 layout, from `crypto.getRandomValues`, which
 * (unlike `crypto.randomUUID`) browsers offer outside secure contexts too, e.g. on a page served
 * over plain http from a LAN address. Where there is no Web Crypto at all, Math.random fills in:
 * a key has to be unique among one caller's requests for the server's key TTL, not secret.
 */
export function randomKey(): string {
  const b = new Uint8Array(16);
  const c = (globalThis as { crypto?: { getRandomValues?: (a: Uint8Array) => unknown } }).crypto;
  if (typeof c?.getRandomValues === 'function') c.getRandomValues(b);
  else for (let i = 0; i < b.length; i++) b[i] = Math.floor(Math.random() * 256);
  b[6] = (b[6]! & 0x0f) | 0x40; // version 4
  b[8] = (b[8]! & 0x3f) | 0x80; // RFC 4122 variant
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
