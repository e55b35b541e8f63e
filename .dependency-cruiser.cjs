/**
 * Architecture rules checked by `npm run lint` (dependency-cruiser): no import cycles, and no
 * import from a lower layer to a higher one. Layers, bottom up:
 *   domain (pure) → store (Cassandra) / cache (Redis) → service → http → main/bootstrap
 * The client package (client/, @regrid/client) stands apart: it imports nothing outside client/
 * (its API types are generated into client/src/api.gen.ts), and the server imports nothing of it.
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
    layer('service', ['http', 'tools', 'main', 'bootstrap']),
    layer('http', ['tools', 'main', 'bootstrap']),
    {
      // The client is installed alone into browsers and other programs: not even a type of the
      // server or a package may leak into its .d.ts files.
      name: 'client-self-contained',
      severity: 'error',
      comment: 'client/ imports only from client/',
      from: { path: '^client/' },
      to: { pathNot: '^client/' },
    },
    {
      name: 'server-without-client',
      severity: 'error',
      comment: 'the service, its tools and benches do not import the client package',
      from: { path: '^(src|bench)/' },
      to: { path: '^client/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
