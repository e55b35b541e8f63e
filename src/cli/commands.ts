/**
 * The product's commands (what a production install runs: `node dist/cli.js`, `npx regrid`):
 * serve, migrate, the operator commands and import. Each module is imported when its command
 * runs. `find` says where Cassandra is: the configured contact points here; the development CLI
 * (tools/cli/dev-commands.ts) passes the local-ring-or-node finder and adds its own commands.
 */
import type { FindCassandra } from '../bootstrap.js';
import type { Command, Commands, Run } from './cli-main.js';
import type { Parsed } from './command-specs.js';
import type { Io, OperatorCommand } from './regrid-commands.js';

// Imported when a command connects, never for --help (bootstrap.ts loads the driver).
const configured: FindCassandra = async (config, notes, progress) =>
  (await import('../bootstrap.js')).configuredCassandra(config, notes, progress);

const forever = () => new Promise<number>(() => undefined); // a server runs until it exits itself

export function productCommands(find: FindCassandra = configured): Commands {
  const operator = (name: OperatorCommand): Command => ({
    load: async (): Promise<Run> => {
      const { runConnected } = await import('./cmd-operator.js');
      return (parsed, io) => runConnected(name, parsed, io, find);
    },
  });
  type Module = { run: (parsed: Parsed, io: Io, find: FindCassandra) => Promise<number> };
  const connected = (module: () => Promise<Module>): Command => ({
    load: async (): Promise<Run> => {
      const { run } = await module();
      return (parsed, io) => run(parsed, io, find);
    },
  });
  return {
    serve: {
      load: async () => {
        const [{ loadConfig }, { startServer }] = await Promise.all([
          import('../config/config.js'),
          import('../server.js'),
        ]);
        return async () => {
          await startServer(loadConfig());
          return forever();
        };
      },
    },
    migrate: connected(() => import('./cmd-migrate.js')),
    audit: operator('audit'),
    takedown: operator('takedown'),
    flags: operator('flags'),
    region: connected(() => import('./cmd-region.js')),
    import: connected(() => import('./cmd-import.js')),
  };
}
