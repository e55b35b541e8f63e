/**
 * The progress line on stderr: moves done, moves/s, errors and CAS retries. On a terminal it
 * rewrites one line a few times a second; otherwise (CI logs) it prints a line every few seconds.
 * Its timer is unref'd and `stop()` is always called by the runner, so it never keeps the process
 * alive or outlives the run.
 */
export interface Counters {
  done: number;
  errors: number;
  casRetries: number;
}

export interface ProgressOptions {
  readonly label: string;
  /** Known total (moves), or a deadline in ms since the epoch for --duration runs. */
  readonly total?: number;
  readonly deadline?: number;
  readonly unit?: string;
  readonly enabled?: boolean;
  readonly stream?: NodeJS.WriteStream;
}

const BAR = 24;

export class Progress {
  private timer: NodeJS.Timeout | undefined;
  private readonly started = Date.now();
  private readonly stream: NodeJS.WriteStream;
  private readonly tty: boolean;

  constructor(
    private readonly counters: Counters,
    private readonly o: ProgressOptions,
  ) {
    this.stream = o.stream ?? process.stderr;
    this.tty = Boolean(this.stream.isTTY);
  }

  start(): this {
    if (this.o.enabled === false) return this;
    this.timer = setInterval(() => this.render(false), this.tty ? 250 : 5_000);
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.o.enabled !== false) this.render(true);
  }

  line(): string {
    const c = this.counters;
    const secs = Math.max(0.001, (Date.now() - this.started) / 1000);
    const share = this.o.total
      ? c.done / this.o.total
      : this.o.deadline
        ? (Date.now() - this.started) / Math.max(1, this.o.deadline - this.started)
        : 0;
    const filled = Math.round(Math.min(1, share) * BAR);
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(BAR - filled)}]`;
    const of = this.o.total ? `/${this.o.total}` : '';
    return (
      `${this.o.label} ${bar} ${c.done}${of} ${this.o.unit ?? 'moves'}  ` +
      `${(c.done / secs).toFixed(1)}/s  errors ${c.errors}  cas retries ${c.casRetries}`
    );
  }

  private render(final: boolean): void {
    if (this.tty) this.stream.write(`\r\x1b[2K${this.line()}${final ? '\n' : ''}`);
    else this.stream.write(`${this.line()}\n`);
  }
}
