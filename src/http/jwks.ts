/**
 * An identity provider's JSON Web Key Set (RFC 7517 §5), fetched from its URL and kept: the keys
 * that verify user and service tokens when AUTH_JWKS_URL is set (./jwks-tokens.ts). Key
 * selection and import are jose's (`createLocalJWKSet`); this module decides only when to fetch:
 *
 * - A set is used for `maxAgeMs` after its fetch; after that the next token fetches it again in
 *   the background and is verified with the set in hand, so no request waits for the provider
 *   while a set is usable.
 * - A set is usable until `maxAgeMs + maxStaleMs` after its fetch: while the provider is down,
 *   the last set keeps verifying for that long; then (and before any set was fetched) a token
 *   cannot be checked and the caller gets KeySetUnavailable (503 with Retry-After, not 401: the
 *   token may be fine).
 * - A token whose `kid` is not in the set fetches the set again (the provider may have rotated
 *   its key) — but fetches of any cause start at most once per `cooldownMs`, and concurrent
 *   callers share one fetch: a flood of tokens with made-up `kid`s costs the provider one request
 *   per cooldown.
 * - One fetch may take `timeoutMs` (connect, headers and body) and `MAX_SET_BYTES`.
 *
 * A key the provider removes stops verifying at the next fetch: `maxAgeMs` after the last one at
 * the latest, or sooner when a new `kid` makes it fetch.
 */
import { createLocalJWKSet, errors, type JSONWebKeySet } from 'jose';
import { Counter } from 'prom-client';
import { registry } from '../obs/registry.js';

type LocalSet = ReturnType<typeof createLocalJWKSet>;
type KeyOf = LocalSet extends (...args: infer A) => infer R ? { args: A; key: R } : never;

const keySetFetches = new Counter({
  name: 'regrid_jwks_fetches_total',
  help: "Fetches of the identity provider's key set (AUTH_JWKS_URL), by outcome (ok, failed)",
  labelNames: ['outcome'] as const,
  registers: [registry],
});

/** A key set of more than this is refused (a provider publishes a handful of keys). */
const MAX_SET_BYTES = 256 * 1024;

/** No usable key set: the provider is unreachable and nothing (or nothing recent) is cached. */
export class KeySetUnavailable extends Error {
  override readonly name = 'KeySetUnavailable';
  constructor(
    message: string,
    /** Seconds until the next fetch may start. */
    readonly retryAfterS: number,
  ) {
    super(message);
  }
}

export interface KeySetOptions {
  readonly url: string;
  readonly maxAgeMs: number;
  readonly maxStaleMs: number;
  readonly cooldownMs: number;
  readonly timeoutMs: number;
  /** Told why a fetch failed (the server's log); silent if unset. */
  readonly log?: (msg: string, err: unknown) => void;
  /** Milliseconds; Date.now unless a test sets a clock. */
  readonly now?: () => number;
}

interface Fetched {
  readonly select: LocalSet;
  readonly at: number;
}

export class KeySet {
  #set: Fetched | undefined;
  #lastStart = -Infinity;
  #lastFailed = false;
  #pending: Promise<boolean> | undefined;
  readonly #now: () => number;

  constructor(readonly options: KeySetOptions) {
    this.#now = options.now ?? Date.now;
  }

  /** The key for a token's protected header, in the shape jose's `jwtVerify` asks for. */
  readonly keyFor = async (...args: KeyOf['args']): KeyOf['key'] => {
    const now = this.#now();
    let set = this.#set;
    if (!set || now - set.at > this.options.maxAgeMs + this.options.maxStaleMs) {
      await this.#fetch(now);
      set = this.#usable(this.#now());
    } else if (now - set.at > this.options.maxAgeMs) {
      void this.#fetch(now); // in the background: the set in hand is still usable
    }
    try {
      return await set.select(...args);
    } catch (err) {
      if (!(err instanceof errors.JWKSNoMatchingKey)) throw err;
      // An unknown kid: the provider may have published a new key since our fetch.
      if (!(await this.#fetch(this.#now()))) {
        if (this.#lastFailed) throw this.#unavailable(this.#now());
        throw err; // cooling down after a fetch that worked: the kid is unknown
      }
      return this.#usable(this.#now()).select(...args);
    }
  };

  #usable(now: number): Fetched {
    const set = this.#set;
    if (set && now - set.at <= this.options.maxAgeMs + this.options.maxStaleMs) return set;
    throw this.#unavailable(now);
  }

  #unavailable(now: number): KeySetUnavailable {
    const wait = Math.max(1, Math.ceil((this.#lastStart + this.options.cooldownMs - now) / 1000));
    return new KeySetUnavailable("the identity provider's key set cannot be fetched", wait);
  }

  /**
   * Fetches the set unless a fetch started less than `cooldownMs` ago; joins one under way.
   * True when a fetch (this one or the joined one) gave a new set.
   */
  #fetch(now: number): Promise<boolean> {
    if (this.#pending) return this.#pending;
    if (now - this.#lastStart < this.options.cooldownMs) return Promise.resolve(false);
    this.#lastStart = now;
    this.#pending = this.#load().finally(() => (this.#pending = undefined));
    return this.#pending;
  }

  async #load(): Promise<boolean> {
    try {
      const res = await fetch(this.options.url, {
        headers: { accept: 'application/jwk-set+json, application/json' },
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      const text = await res.text();
      if (text.length > MAX_SET_BYTES) throw new Error(`larger than ${MAX_SET_BYTES} bytes`);
      const select = createLocalJWKSet(JSON.parse(text) as JSONWebKeySet);
      this.#set = { select, at: this.#now() };
      this.#lastFailed = false;
      keySetFetches.inc({ outcome: 'ok' });
      return true;
    } catch (err) {
      this.#lastFailed = true;
      keySetFetches.inc({ outcome: 'failed' });
      this.options.log?.(`fetching the key set at ${this.options.url} failed`, err);
      return false;
    }
  }
}
