/**
 * Builds the Hono app: one sub-app per resource mounted with `app.route()`, auth on /v1/me/*,
 * a body size limit on /v1/*, and the single problem+json error mapping. No I/O happens here;
 * the caller passes the wired service (src/main.ts, or a test).
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { GridService } from '../service/grid-service.js';
import { requireProfile } from './auth.js';
import type { AppEnv } from './env.js';
import { onError, problemResponse } from './problem.js';
import { gridRoutes } from './routes/grid.js';
import { healthRoutes, type Readiness } from './routes/health.js';
import { postsRoutes } from './routes/posts.js';

export interface AppDeps {
  readonly service: GridService;
  readonly jwtSecret: string;
  readonly bodyLimitBytes: number;
  readonly readiness: () => Promise<Readiness>;
  readonly log?: (msg: string, err: unknown) => void;
}

export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.onError(onError(deps.log));
  app.notFound(() => problemResponse({ status: 404, code: 'not_found', detail: 'no such route' }));

  app.use(
    '/v1/*',
    bodyLimit({
      maxSize: deps.bodyLimitBytes,
      onError: () =>
        problemResponse({
          status: 413,
          code: 'payload_too_large',
          detail: `bodies are limited to ${deps.bodyLimitBytes} bytes`,
        }),
    }),
  );
  app.use('/v1/me/*', requireProfile(deps.jwtSecret));

  app.route('/', healthRoutes(deps.readiness));
  app.route('/v1', postsRoutes(deps.service));
  app.route('/v1', gridRoutes(deps.service));
  return app;
}
