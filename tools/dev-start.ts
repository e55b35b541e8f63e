/**
 * `npm start` and `npm run dev`: the development entry (tools/dev-server.ts finds or starts the
 * local stores, then starts the service of src/server.ts). Production runs `node dist/main.js`.
 */
import { devStart } from './dev-server.js';

try {
  await devStart();
} catch (err) {
  console.error('regrid failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
}
