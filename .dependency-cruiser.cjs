/**
 * Architecture rules checked by `npm run lint` (dependency-cruiser): no import cycles, and no
 * import from a lower layer to a higher one. Layers, bottom up:
 *   domain (pure) → store (Cassandra) / cache (Redis) → service → http → main/bootstrap
 * Tooling (cli, loadtest, infra) sits beside the service code and is never imported by it.
 */
const layer = (name, forbidden) => ({
  name: `no-upward-from-${name}`,
  severity: 'error',
  comment: `${name} must not import ${forbidden.join(', ')}`,
  from: { path: `^src/${name}/` },
  to: { path: `^src/(${forbidden.join('|')})/` },
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
    layer('domain', ['store', 'cache', 'service', 'http', 'infra', 'cli', 'loadtest']),
    layer('store', ['cache', 'service', 'http', 'cli', 'loadtest']),
    layer('cache', ['store', 'service', 'http', 'infra', 'cli', 'loadtest']),
    layer('service', ['http', 'cli', 'loadtest']),
    layer('http', ['cli', 'loadtest', 'infra']),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
