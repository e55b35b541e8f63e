/**
 * Events of a load-test run (a ring node killed, then restarted): each fires in order once its
 * share of the run is reached, while the movers go on.
 */

/** Something done to the cluster at a point of the run (a node killed, a node restarted). */
export interface RunEvent {
  readonly name: string;
  /** Share of the run (moves, or unpaused time) at which it starts. */
  readonly at: number;
  /** Runs even when the movers finish first (bringing a killed node back). */
  readonly mustRun?: boolean;
  readonly run: () => Promise<void>;
}

export interface FiredEvent {
  readonly name: string;
  readonly at: number;
  /** Seconds into the run when it started and when it was done; moves attempted by then. */
  readonly startedS: number;
  readonly doneS: number;
  readonly movesAttempted: number;
}

export interface RunClock {
  /** Share of the run done so far (moves, or unpaused time). */
  share(): number;
  /** The movers are done. */
  finished(): boolean;
  /** When the run started (ms since the epoch). */
  readonly started: number;
  attempted(): number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function fireEvents(
  events: readonly RunEvent[],
  clock: RunClock,
): Promise<FiredEvent[]> {
  const fired: FiredEvent[] = [];
  for (const e of [...events].sort((a, b) => a.at - b.at)) {
    while (clock.share() < e.at && !clock.finished()) await sleep(10);
    if (clock.finished() && !e.mustRun) continue;
    const startedS = (Date.now() - clock.started) / 1000;
    const movesAttempted = clock.attempted();
    await e.run();
    fired.push({
      name: e.name,
      at: e.at,
      startedS,
      doneS: (Date.now() - clock.started) / 1000,
      movesAttempted,
    });
  }
  return fired;
}
