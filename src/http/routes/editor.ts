/**
 * The web grid editor (web/, built by vite into web/dist by `npm start` / `npm run build`):
 *   GET /            → index.html (no-cache: it names the current hashed bundle)
 *   GET /assets/*    → the bundle; file names carry a content hash, so they are immutable
 * When the build is missing, `/` says how to make it instead of a bare 404.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import type { AppEnv } from '../env.js';

export function editorRoutes(root: string) {
  const app = new Hono<AppEnv>();
  const index = join(root, 'index.html');
  app.get('/', async (c, next) => {
    if (!existsSync(index)) {
      return c.text('The web editor is not built: run `npm run build:web`.\n', 503, {
        'retry-after': '60',
      });
    }
    c.header('cache-control', 'no-cache');
    return serveStatic({ path: index })(c, next);
  });
  const assets = serveStatic({ root });
  app.use('/assets/*', async (c, next) => {
    // Set before the file is served: serveStatic builds its response before onFound runs.
    c.header('cache-control', 'public, max-age=31536000, immutable');
    return assets(c, next);
  });
  return app;
}
