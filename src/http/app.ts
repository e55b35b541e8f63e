/**
 * Builds the Hono app: one sub-app per resource mounted with `app.route()` (each route registered
 * from its definition in api/, so the app's OpenAPI document is theirs), auth on /v1/me/*,
 * and the single problem+json error mapping. A route's guards follow from its definition: the
 * body size limit on a method that carries a body, the request deadline on /v1 (deadline.ts);
 * so a GET runs neither, and the grid read arms its deadline only on its way to Cassandra.
 * No I/O happens here; the caller passes the wired service (src/main.ts, or a test).
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Hono, MiddlewareHandler } from 'hono';
import type { GridService } from '../service/grid-service.js';
import type { IdempotencyService } from '../service/idempotency/idempotency.js';
import { requireProfile, type TokenRules } from './auth.js';
import { keySetRulesOf } from './jwks-tokens.js';
import { requireService } from './service-auth.js';
import { identifyViewer } from './viewer.js';
import { bodyLimit, carriesBody } from './body-limit.js';
import type { AppEnv } from './env.js';
import { tokenPolicyOf, type TokenPolicy } from './jwt.js';
import type { Config } from '../config/config.js';
import {
  answeredByDeadline,
  deadline,
  storeDeadline,
  type Deadlines,
  type Log,
} from './deadline.js';
import { readGrid } from './api/ops-grid.js';
import { onError, problemResponse } from './problem.js';
import { gridRoutes } from './routes/grid.js';
import { changesRoutes } from './routes/changes.js';
import type { Readiness } from '../service/readiness.js';
import { healthRoutes } from './routes/health.js';
import { metricsRoutes } from './routes/metrics.js';
import { registry } from '../obs/registry.js';
import { requestLogger, silentLogger, type Logger } from '../obs/logger.js';
import { observe } from './observe.js';
import type { TracingRuntime } from '../obs/tracing.js';
import { traceRequests } from './trace.js';
import { postsRoutes } from './routes/posts.js';
import { adminRoutes, requireAdmin } from './routes/admin.js';
import { gridFeatureRoutes } from './routes/grid-edits.js';
import { mediaRoutes } from './routes/media.js';
import { inboxRoutes } from './routes/inbox.js';
import { profilePostsRoutes } from './routes/profile-posts.js';
import { postFeatureRoutes } from './routes/post-states.js';
import { editorRoutes } from './routes/editor.js';
import { devTokenRoutes, type DevTokens } from './routes/dev-token.js';
import { docsRoutes } from './routes/docs.js';
import { homeRegionRoutes } from './routes/home-region.js';
import { forwardMisdirected, type RegionForwarding } from './region-forward.js';
import { regionPolicyOf } from '../config/regions.js';

export interface AppDeps {
  readonly service: GridService;
  readonly jwtSecret: string;
  /** Token lifetime and clock-skew rules (config AUTH_*); the configuration's defaults if unset. */
  readonly tokenPolicy?: TokenPolicy;
  readonly bodyLimitBytes: number;
  /** A body not complete this long after its headers is 408 (BODY_TIMEOUT_MS; 5 s if unset). */
  readonly bodyTimeoutMs?: number;
  readonly readiness: () => Promise<Readiness>;
  readonly log?: (msg: string, err: unknown) => void;
  /** OpenTelemetry tracing, when on (src/obs/tracing.ts): a span per request. */
  readonly tracing?: TracingRuntime;
  /** Idempotency-Key support on every write route (docs/idempotency.md). */
  readonly idempotency?: IdempotencyService;
  /** Bearer token of the moderation API (/v1/admin/*); unset = admin API disabled. */
  readonly adminToken?: string;
  /** Per-request deadlines on /v1/* (src/http/deadline.ts); none = requests wait the driver. */
  readonly deadlines?: Deadlines;
  /** One JSON line per request (http/observe.ts); request metrics are kept either way. */
  readonly logger?: Logger;
  /** Folder of the built web editor (web/dist), served at `/`; unset = no editor. */
  readonly editorRoot?: string;
  /** HS256 secret of service tokens (http/service-auth.ts); unset = the service routes are off. */
  readonly serviceJwtSecret?: string | undefined;
  /** User tokens from an identity provider (http/jwks-tokens.ts); set = `jwtSecret` verifies none. */
  readonly userTokens?: TokenRules;
  /** Service tokens from an identity provider; set = `serviceJwtSecret` is not used. */
  readonly serviceTokens?: TokenRules;
  /** Development sign-in (POST /dev/token); only when the JWT secret was generated. */
  readonly devTokens?: DevTokens;
  /**
   * `api`: the public listener beside an admin one (ADMIN_PORT, src/server.ts): the API, health
   * and /openapi.json only; /metrics, the /docs page, the editor and /dev/token are the admin's.
   */
  readonly surface?: 'all' | 'api';
  /** REGRID_HOME_REGIONS=forward: misdirected writes go to their home region (region-forward.ts). */
  readonly regions?: RegionForwarding;
}

/**
 * The app's settings that come straight from the configuration (the server and createRegrid);
 * `log` is told when the identity provider's key set cannot be fetched.
 */
export const appSettingsOf = (config: Config, log?: (msg: string, err: unknown) => void) => ({
  ...(config.ADMIN_TOKEN ? { adminToken: config.ADMIN_TOKEN } : {}),
  ...keySetRulesOf(config, log),
  serviceJwtSecret: config.AUTH_SERVICE_JWT_SECRET,
  tokenPolicy: tokenPolicyOf(config),
  bodyLimitBytes: config.BODY_LIMIT_BYTES,
  bodyTimeoutMs: config.BODY_TIMEOUT_MS,
  ...forwardingOf(config),
});

const forwardingOf = (config: Config): { regions?: RegionForwarding } => {
  const policy = regionPolicyOf(config);
  if (policy?.mode !== 'forward') return {};
  const { REGRID_REGION_PEERS: peers, REGRID_FORWARD_TIMEOUT_MS: timeoutMs } = config;
  return { regions: { policy, peers, timeoutMs } };
};

export function createApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const log = deps.log ?? (() => {});
  const routers = routersOf(app, deps, log);
  app.onError(onError(deps.log, answeredByDeadline));
  const logger = requestLogger(deps.logger ?? silentLogger);
  app.use('*', observe(logger)); // first: it sees every final answer
  // Only when on (docs/operating.md "Tracing"): no cost when off.
  if (deps.tracing) app.use('*', traceRequests(deps.tracing));
  const limitBody = bodyLimit(deps.bodyLimitBytes, deps.bodyTimeoutMs ?? 5_000);
  // An unknown path's body is limited too: an upload to nowhere still gets its 413 or 408.
  const noRoute = () =>
    problemResponse({ status: 404, code: 'not_found', detail: 'no such route' });
  app.notFound(async (c) =>
    carriesBody(c.req.method) ? ((await limitBody(c, async () => {})) ?? noRoute()) : noRoute(),
  );

  // Middleware that may answer before a route does, on the paths it guards.
  const viewer = identifyViewer(
    deps.userTokens ?? deps.jwtSecret,
    deps.serviceTokens ?? deps.serviceJwtSecret,
    deps.tokenPolicy,
  );
  const serviceAuth = requireService(deps.serviceTokens ?? deps.serviceJwtSecret, deps.tokenPolicy);
  const gates: [string, MiddlewareHandler<AppEnv>][] = [
    ['/v1/me/*', requireProfile(deps.userTokens ?? deps.jwtSecret, deps.tokenPolicy)],
    ['/v1/profiles/:profile_id/posts/:post_id', serviceAuth],
    ['/v1/profiles/:profile_id/home-region', serviceAuth],
    // Public reads that answer an owner more than anyone else (an archived post, private kinds).
    ['/v1/posts/:post_id', viewer],
    ['/v1/profiles/:profile_id/grid/changes', viewer],
    // The moderation API's own bearer token (routes/admin.ts).
    ['/v1/admin/*', requireAdmin(deps.adminToken)],
  ];
  const gated = (path: string) =>
    gates.some(([g]) => (g.endsWith('/*') ? path.startsWith(g.slice(0, -1)) : path === g));

  // The body first, before anything that may answer: the request deadline is the store's, so its
  // clock starts once the body is in. Per route, from its definition, so a GET runs none of it;
  // on a gate's path for any method (a 401 must not come before a 413 or 408).
  const routes = routers.flatMap(routesOf);
  for (const [path] of gates) app.use(path, limitBody);
  for (const r of routes)
    if (carriesBody(r.method) && !gated(r.path)) app.on(r.method, r.path, limitBody);
  // Outside the request deadline: the deadline governs the local attempt ("not applied" is true
  // of it), the forwarded request has its own timeout and answers (region-forward.ts).
  if (deps.regions) app.use('/v1/*', forwardMisdirected(deps.regions));
  if (deps.deadlines) {
    const guard = deadline(deps.deadlines, log);
    // The grid read arms its deadline itself, only once it reaches Cassandra (routes/grid.ts).
    for (const r of routes)
      if (r.path.startsWith('/v1/') && r.operationId !== readGrid.operationId)
        app.on(r.method, r.path, guard);
  }
  for (const [path, gate] of gates) app.use(path, gate);

  for (const router of routers) app.route('/', router);
  return app;
}

/** The resources' sub-apps, in mounting order (built first: their routes choose the guards). */
function routersOf(app: OpenAPIHono<AppEnv>, deps: AppDeps, log: Log): Hono<AppEnv>[] {
  const operator = deps.surface !== 'api';
  const { service, idempotency } = deps;
  const reach = deps.deadlines && storeDeadline(deps.deadlines, log);
  return [
    healthRoutes(deps.readiness),
    ...(operator ? [metricsRoutes(registry)] : []),
    docsRoutes(app, { page: operator }),
    postsRoutes(service, idempotency),
    gridRoutes(service, idempotency, reach),
    changesRoutes(service),
    gridFeatureRoutes(service, idempotency),
    postFeatureRoutes(service, idempotency),
    inboxRoutes(service, idempotency),
    mediaRoutes(service),
    profilePostsRoutes(service),
    homeRegionRoutes(service),
    adminRoutes(service, idempotency),
    ...(operator && deps.editorRoot ? [editorRoutes(deps.editorRoot)] : []),
    ...(operator && deps.devTokens ? [devTokenRoutes(deps.jwtSecret, deps.devTokens)] : []),
  ];
}

/**
 * A sub-app's operations as Hono matches them (`{id}` in the document is `:id` here); the editor's
 * static files (a plain Hono app) are none.
 */
const routesOf = (router: Hono<AppEnv>) =>
  (router instanceof OpenAPIHono ? router.openAPIRegistry.definitions : []).flatMap((d) =>
    d.type === 'route'
      ? [
          {
            method: d.route.method.toUpperCase(),
            path: d.route.path.replaceAll(/\/{(.+?)}/g, '/:$1'),
            operationId: d.route.operationId,
          },
        ]
      : [],
  );
