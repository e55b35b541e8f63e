/**
 * Architecture rules checked by `npm run lint` (dependency-cruiser): no import cycles, and no
 * import from a lower layer to a higher one. Layers, bottom up:
 *   domain (pure) → store (Cassandra) / cache (Redis) → service → http → server/bootstrap/main,
 *   cli (the product's commands)
 * src/ is the product alone: it imports nothing outside src/ and no development package (pg,
 * undici, the load tester's and the key benchmarks' peers are devDependencies). The development
 * tooling (tools/: the development entries, local provisioning, the load tester, generators)
 * imports src/, never the other way round.
 * The client package (client/, @regrid/client) stands apart: it imports nothing outside client/
 * (its API types are generated into client/src/api.gen.ts), and the server imports nothing of it.
 */
/** The process entries and the CLI, above every layer. */
const TOP = ['main', 'server', 'bootstrap', 'cli'];

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
    layer('domain', ['store', 'cache', 'service', 'http', 'obs', 'config', ...TOP]),
    layer('obs', ['store', 'cache', 'service', 'http', ...TOP]),
    layer('store', ['cache', 'service', 'http', ...TOP]),
    layer('cache', ['store', 'service', 'http', ...TOP]),
    layer('service', ['http', ...TOP]),
    layer('http', TOP),
    {
      name: 'src-is-the-product',
      severity: 'error',
      comment: 'src/ imports nothing outside src/ (tools/, bench/, test/ … import src/)',
      from: { path: '^src/' },
      to: { path: '^(tools|bench|test|scripts|examples|web|client|bin)/' },
    },
    {
      name: 'tools-without-tests',
      severity: 'error',
      comment: 'tools/ runs from a checkout for developers: it imports src/ and itself, not tests',
      from: { path: '^tools/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'src-without-dev-packages',
      severity: 'error',
      comment: 'a production install has no devDependencies: src/ must not need one',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'] },
    },
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
      from: { path: '^(src|tools|bench)/' },
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
