/**
 * Lets the sampler stop the movers for a moment: `pause()` closes the gate and resolves once every
 * move in flight has finished, so a sample read sees the grid after exactly N moves and competes
 * with nothing; `resume()` reopens it. Time spent paused is tracked so throughput excludes it.
 */
export class PauseGate {
  private inflight = 0;
  private gate: Promise<void> | null = null;
  private open: (() => void) | null = null;
  private drained: (() => void) | null = null;
  private pausedAt = 0;
  /** Total milliseconds spent paused so far. */
  pausedMs = 0;

  /** Waits while paused, then counts the caller as in flight. */
  async enter(): Promise<void> {
    while (this.gate) await this.gate;
    this.inflight++;
  }

  leave(): void {
    this.inflight--;
    if (this.inflight === 0) this.drained?.();
  }

  get inFlight(): number {
    return this.inflight;
  }

  async pause(): Promise<void> {
    if (this.gate) throw new Error('already paused');
    this.gate = new Promise<void>((resolve) => (this.open = resolve));
    this.pausedAt = performance.now();
    if (this.inflight > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    this.drained = null;
  }

  resume(): void {
    if (!this.gate) return;
    this.pausedMs += performance.now() - this.pausedAt;
    const open = this.open;
    this.gate = null;
    this.open = null;
    open?.();
  }
}
