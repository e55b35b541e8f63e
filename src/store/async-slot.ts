/**
 * Named slots of ONE async context. The request's statement scope and the running operation's
 * label each used an AsyncLocalStorage of their own, and Node runs
 * every enabled storage's propagation for every promise created: on a move that was a sixth of
 * its CPU. A slot has the same three calls (`run`, `getStore`, `exit`), so callers do not change;
 * all slots live in one storage holding a small frozen record, copied when a slot is set.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

type Slots = Readonly<Record<symbol, unknown>>;

const context = new AsyncLocalStorage<Slots>();

export class AsyncSlot<T> {
  private readonly key: symbol;

  constructor(name: string) {
    this.key = Symbol(name);
  }

  getStore(): T | undefined {
    return context.getStore()?.[this.key] as T | undefined;
  }

  /** Runs `f` with this slot set to `value`; the other slots keep their values. */
  run<R>(value: T, f: () => R): R {
    return context.run({ ...context.getStore(), [this.key]: value }, f);
  }

  /** Runs `f` with this slot unset; the other slots keep their values. */
  exit<R>(f: () => R): R {
    const slots = context.getStore();
    if (!slots || slots[this.key] === undefined) return f();
    return context.run({ ...slots, [this.key]: undefined }, f);
  }
}
