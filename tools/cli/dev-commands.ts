/**
 * The development CLI's commands: the product's (src/cli/commands.ts), finding Cassandra the
 * development way (a local ring, else the local node, provisioned when none answers:
 * tools/infra/dev-stores.ts), `serve` as `npm start` serves (tools/dev-server.ts), and the
 * development commands seed, cassandra and loadtest. Each module is imported when it runs.
 */
import { runCli, type Commands } from '../../src/cli/cli-main.js';
import { productCommands } from '../../src/cli/commands.js';
import { EXIT, failureOf, UsageError } from '../../src/cli/exit-codes.js';
import type { Io } from '../../src/cli/regrid-commands.js';
import type { FindCassandra } from '../../src/bootstrap.js';

// Imported when a command connects, never for --help (dev-stores.ts loads the driver).
const findLocal: FindCassandra = async (config, notes, progress) =>
  (await import('../infra/dev-stores.js')).findLocalCassandra(config, notes, progress);

const forever = () => new Promise<number>(() => undefined); // a server runs until it exits itself

export function devCommands(): Commands {
  return {
    ...productCommands(findLocal),
    serve: {
      load: async () => {
        const { devStart } = await import('../dev-server.js');
        return async () => {
          await devStart();
          return forever();
        };
      },
    },
    seed: { load: async () => (await import('./cmd-seed.js')).run },
    cassandra: { load: async () => (await import('./cmd-cassandra.js')).run },
    loadtest: {
      load: async () => (await import('./cmd-loadtest.js')).run,
      help: async () => (await import('../loadtest/usage.js')).USAGE,
    },
  };
}

/** `regrid <argv>` as a development checkout runs it (tools/cli.ts); the exit code. */
export async function runDevCli(argv: readonly string[], io: Io): Promise<number> {
  // The multi-DC ring's options and fault commands are not in src/cli/command-specs.ts.
  if (argv[0] === 'cassandra' && !argv.includes('--help')) {
    const regions = await import('./cmd-regions.js');
    if (regions.isRegionsInvocation(argv.slice(1))) {
      try {
        return await regions.runRegions(argv.slice(1), io);
      } catch (err) {
        if (err instanceof UsageError) {
          io.err(`${err.message} (npm run regrid -- cassandra --help; docs/regions.md)`);
          return EXIT.usage;
        }
        const { code, line } = failureOf(err);
        io.err(`regrid cassandra: ${line}`);
        return code;
      }
    }
  }
  return runCli(argv, io, devCommands());
}
