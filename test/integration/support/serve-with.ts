/**
 * The service as src/main.ts starts it, with constants (docs/configuration.md "Constants") set
 * from the JSON object in argv[2]: a test that needs a server process with, say, a drain of its
 * own. Constants are never read from the environment (src/config/config.ts `loadConfig`).
 */
import { loadConfig } from '../../../src/config/config.js';
import { startServer } from '../../../src/server.js';

const settings = JSON.parse(process.argv[2] ?? '{}') as Record<string, string | number>;
await startServer(loadConfig(process.env, settings));
