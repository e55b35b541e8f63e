/**
 * The `regrid` CLI of a development checkout (`npm run regrid -- <command>`, the cassandra:*,
 * migrate, seed:demo and loadtest scripts, and bin/regrid.mjs in a checkout): the product's
 * commands plus the development ones (tools/cli/dev-commands.ts).
 */
import { runDevCli } from './cli/dev-commands.js';

const code = await runDevCli(process.argv.slice(2), {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
});
process.exit(code);
