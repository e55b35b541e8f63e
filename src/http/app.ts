/**
 * Builds the Hono app: one sub-app per resource mounted with `app.route()`, auth on /v1/me/*,
 * a body size limit on /v1/*, and the single problem+json error mapping. No I/O happens here;
 * the caller passes the wired service (src/main.ts, or a test).
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { FeatureService } from '../service/feature-service.js';
import type { GridService } from '../service/grid-service.js';
import type { IdempotencyService } from '../service/idempotency.js';
import { requireProfile } from './auth.js';
import type { AppEnv } from './env.js';
import { answeredByDeadline, deadline, type Deadlines } from './deadline.js';
import { onError, problemResponse } from './problem.js';
import { gridRoutes } from './routes/grid.js';
import { healthRoutes, type Readiness } from './routes/health.js';
import { postsRoutes } from './routes/posts.js';
import { adminRoutes } from './routes/admin.js';
import { gridFeatureRoutes } from './routes/grid-features.js';
import { mediaRoutes } from './routes/media.js';
import { postFeatureRoutes } from './routes/post-features.js';

export interface AppDeps {
  readonly service: GridService;
  readonly jwtSecret: string;
  readonly bodyLimitBytes: number;
  readonly readiness: () => Promise<Readiness>;
  readonly log?: (msg: string, err: unknown) => void;
  /** Issue-3 features (pins, archive, order, media, takedown…); their routes mount when given. */
  readonly features?: FeatureService;
  /** Idempotency-Key support on every write route (docs/idempotency.md). */
  readonly idempotency?: IdempotencyService;
  /** Bearer token of the moderation API (/v1/admin/*); unset = admin API disabled. */
  readonly adminToken?: string;
  /** Per-request deadlines on /v1/* (src/http/deadline.ts); none = requests wait the driver. */
  readonly deadlines?: Deadlines;
}

export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.onError(onError(deps.log, answeredByDeadline));
  app.notFound(() => problemResponse({ status: 404, code: 'not_found', detail: 'no such route' }));

  if (deps.deadlines) app.use('/v1/*', deadline(deps.deadlines, deps.log ?? (() => {})));
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
  const extras = { features: deps.features, idempotency: deps.idempotency };
  app.route('/v1', postsRoutes(deps.service, extras));
  app.route('/v1', gridRoutes(deps.service, extras));
  if (deps.features) {
    app.route('/v1', gridFeatureRoutes(deps.features, deps.idempotency));
    app.route('/v1', postFeatureRoutes(deps.features, deps.idempotency));
    app.route('/v1', mediaRoutes(deps.features));
    app.route('/v1', adminRoutes(deps.features, deps.adminToken, deps.idempotency));
  }
  return app;
}
