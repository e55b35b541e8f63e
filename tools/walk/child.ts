/**
 * The service under measurement, as its own process: the real server (src/server.ts
 * `startServer`, the same one `node dist/main.js` runs) on the configuration its environment
 * gives, plus one IPC command for the parent (tools/walk/walk.ts, tools/loadtest/production/):
 * `take` calls `v8.takeCoverage()` (when NODE_V8_COVERAGE is set) and answers `taken`, and
 * `cpu` answers the process's CPU time so far, so a load test can report the service's own
 * CPU per request rather than the load generator's.
 */
import { takeCoverage } from 'node:v8';
import { loadConfig, TUNING_NAMES } from '../../src/config/config.js';
import { startServer } from '../../src/server.js';

interface Ask {
  readonly id: number;
  readonly op: 'take' | 'cpu';
}

process.on('message', (m: Ask) => {
  if (m.op === 'take') {
    if (process.env.NODE_V8_COVERAGE) takeCoverage();
    process.send?.({ id: m.id, taken: true });
  } else {
    const u = process.cpuUsage();
    process.send?.({ id: m.id, cpuUs: u.user + u.system });
  }
});
// The parent's end of the channel closing means the run is over: leave with it.
process.on('disconnect', () => process.kill(process.pid, 'SIGINT'));

// A constant (docs/configuration.md "Constants") is refused from the environment; the parent's
// ablation switches (`--env`) arrive that way, so they are handed over as code settings.
const env: Record<string, string | undefined> = {};
const settings: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) {
  if (TUNING_NAMES.has(k) && v !== undefined) settings[k] = v;
  else env[k] = v;
}
await startServer(loadConfig(env, settings));
process.send?.({ id: 0, ready: true });
