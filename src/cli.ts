/**
 * The product's `regrid` CLI (dist/cli.js; bin/regrid.mjs runs it in an install). Everything is
 * in src/cli/cli-main.ts, which imports a command's modules only when that command runs. A
 * development checkout runs tools/cli.ts instead, which adds the development commands.
 */
import { runCli } from './cli/cli-main.js';
import { productCommands } from './cli/commands.js';

const code = await runCli(
  process.argv.slice(2),
  { out: (line) => console.log(line), err: (line) => console.error(line) },
  productCommands(),
);
process.exit(code);
