/**
 * Architecture rules checked by `npm run lint` (dependency-cruiser): no import cycles, and no
 * import from a lower layer to a higher one. Layers, bottom up:
 *   domain (pure) → store (Cassandra) / cache (Redis) → service → http → main/bootstrap
 * The typed client (src/client) stands apart: it takes only types from src/http.
 * Tooling (src/tools/: CLIs, the load tester, local provisioning) sits beside the service code
 * and is never imported by it; only main/bootstrap (provisioning at start) and tools use it.
 */
const layer = (name, forbidden) => ({
  name: `no-upward-from-${name}`,
  severity: 'error',
  comment: `${name} must not import ${forbidden.join(', ')}`,
  from: { path: `^src/${name}/` },
  to: { path: `^src/(${forbidden.join('|')})(/|\\.ts$)` },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'import cycles make modules impossible to read or test on their own',
      from: {},
      to: { circular: true },
    },
    layer('domain', [
      'store',
      'cache',
      'service',
      'http',
      'tools',
      'obs',
      'config',
      'main',
      'bootstrap',
    ]),
    layer('obs', ['store', 'cache', 'service', 'http', 'tools', 'main', 'bootstrap']),
    layer('store', ['cache', 'service', 'http', 'tools', 'main', 'bootstrap']),
    layer('cache', ['store', 'service', 'http', 'tools', 'main', 'bootstrap']),
    layer('service', ['http', 'tools', 'main', 'bootstrap', 'client']),
    layer('http', ['tools', 'main', 'bootstrap', 'client']),
    {
      // The client runs in browsers and other programs: it may take the API's *types* from
      // src/http (the registry) but must load nothing of the server at run time.
      name: 'client-types-only',
      severity: 'error',
      comment: 'src/client imports only types from outside src/client',
      from: { path: '^src/client/' },
      to: { path: '^src/(?!client/)', dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
