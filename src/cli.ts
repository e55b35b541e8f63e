/**
 * The `regrid` CLI (bin/regrid.mjs runs its build, dist/cli.js, or this file through tsx in a
 * checkout; `npm run regrid -- <command>`). Everything is in src/tools/cli/cli-main.ts, which
 * imports a command's modules only when that command runs.
 */
import { runCli } from './tools/cli/cli-main.js';

const code = await runCli(process.argv.slice(2), {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
});
process.exit(code);
