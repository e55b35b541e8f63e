import { describe, expect, it } from 'vitest';
import { PauseGate } from '../../../tools/loadtest/pause-gate.js';

const tick = () => new Promise<void>((r) => setImmediate(r));

describe('PauseGate', () => {
  it('pause() waits for in-flight work, and blocks new work until resume()', async () => {
    const gate = new PauseGate();
    const log: string[] = [];
    await gate.enter(); // one move in flight
    let paused = false;
    const pausing = gate.pause().then(() => (paused = true));
    await tick();
    expect(paused).toBe(false); // still draining
    const next = gate.enter().then(() => log.push('entered'));
    gate.leave();
    await pausing;
    expect(paused).toBe(true);
    expect(gate.inFlight).toBe(0);
    await tick();
    expect(log).toEqual([]); // blocked while paused
    gate.resume();
    await next;
    expect(log).toEqual(['entered']);
    expect(gate.pausedMs).toBeGreaterThanOrEqual(0);
  });

  it('pauses at once when nothing is in flight, and refuses a second pause', async () => {
    const gate = new PauseGate();
    await gate.pause();
    await expect(gate.pause()).rejects.toThrow(/already paused/);
    gate.resume();
    gate.resume(); // harmless
    await gate.enter();
    expect(gate.inFlight).toBe(1);
  });
});
