/**
 * A per-process cap on sampled work per second (a token bucket of `perSecond` tokens refilled
 * continuously). Sampling by share alone makes the sampled path's cost grow with traffic: at
 * 20,000 first-page hits a second, a 1% share sends 200 requests a second down the full read, as
 * expensive as all the hits together. A few samples a second are what a correctness signal needs.
 */
export interface SampleBudget {
  /** Whether one more sample fits now (takes it if so). */
  take(): boolean;
}

export function createSampleBudget(perSecond: number, now: () => number = Date.now): SampleBudget {
  if (perSecond <= 0) return { take: () => false };
  let tokens = perSecond;
  let at = now();
  return {
    take() {
      const t = now();
      tokens = Math.min(perSecond, tokens + ((t - at) / 1000) * perSecond);
      at = t;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
  };
}
