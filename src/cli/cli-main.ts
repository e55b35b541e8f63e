/**
 * `regrid <command>`: reads the command with node:util parseArgs, answers --help and --version
 * from plain data (command-specs.ts), and only then imports the command's module, so that help
 * and version never load a driver, read the configuration or connect anywhere. Which commands
 * can run is the entry's table (commands.ts): the product's (src/cli.ts, dist/cli.js), or with
 * the development commands added (tools/cli.ts). Exit codes: exit-codes.ts (docs/cli.md).
 */
import { parseArgs } from 'node:util';
import { version } from '../obs/build-info.js';
import { parseCommandArgs, SPECS, type CommandSpec, type Parsed } from './command-specs.js';
import { devCheckout, devOnlyMessage, isMissingModule } from './dev-tooling.js';
import { EXIT, failureOf, UsageError } from './exit-codes.js';
import type { Io } from './regrid-commands.js';

export type Run = (parsed: Parsed, io: Io, argv: readonly string[]) => Promise<number>;

/** A runnable command: its module, imported when it runs (never for --help). */
export interface Command {
  readonly load: () => Promise<Run>;
  /** The --help body of a command that parses its own arguments (passThrough). */
  readonly help?: () => Promise<string>;
}

export type Commands = Readonly<Record<string, Command>>;

/** True when every development command of SPECS can run with these commands. */
const hasDevCommands = (commands: Commands) =>
  SPECS.every((s) => !s.devOnly || commands[s.name] !== undefined);

export function usage(dev: boolean): string {
  const width = Math.max(...SPECS.map((s) => s.name.length));
  const lines = SPECS.map(
    (s) => `  ${s.name.padEnd(width)}  ${s.summary}${s.devOnly ? ' [development checkout]' : ''}`,
  );
  return [
    `regrid ${version}: user-defined order for profile grids on Cassandra and Redis`,
    '',
    'usage: regrid <command> [options]    regrid <command> --help    regrid --version',
    '',
    ...lines,
    '',
    dev
      ? '[development checkout]: needs the devDependencies (present here).'
      : devCheckout()
        ? '[development checkout]: in this checkout through `npm run regrid` (tools/cli.ts).'
        : '[development checkout]: not available in this install (no devDependencies).',
    'Exit codes: 0 ok, 1 findings, 2 usage, 3 unavailable (docs/cli.md).',
    'Configuration: environment variables (docs/configuration.md).',
  ].join('\n');
}

/** Runs `argv` (what follows `regrid`) with `commands`; the exit code. */
export async function runCli(argv: readonly string[], io: Io, commands: Commands): Promise<number> {
  const dev = hasDevCommands(commands);
  const { tokens } = parseArgs({
    args: [...argv],
    options: { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'V' } },
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const first = tokens.find((t) => t.kind === 'positional');
  const before = tokens.filter((t) => first === undefined || t.index < first.index);
  const unknown = before.find((t) => t.kind === 'option' && t.name !== 'help' && t.name !== 'version'); // prettier-ignore
  if (unknown?.kind === 'option') {
    io.err(`unknown option '${unknown.rawName}'\n\n${usage(dev)}`);
    return EXIT.usage;
  }
  const asked = (name: string) => before.some((t) => t.kind === 'option' && t.name === name);
  if (asked('version')) {
    io.out(`regrid ${version}`);
    return EXIT.ok;
  }
  if (first === undefined || asked('help')) {
    if (first === undefined && !asked('help')) {
      io.err(usage(dev));
      return EXIT.usage;
    }
    io.out(usage(dev));
    return EXIT.ok;
  }
  const name = first.kind === 'positional' ? first.value : '';
  const spec = SPECS.find((s) => s.name === name);
  if (!spec) {
    io.err(`no command '${name}'\n\n${usage(dev)}`);
    return EXIT.usage;
  }
  return runCommand(spec, argv.slice(first.index + 1), io, commands[spec.name]);
}

async function runCommand(
  spec: CommandSpec,
  args: readonly string[],
  io: Io,
  command: Command | undefined,
): Promise<number> {
  const parsed = parseCommandArgs(spec, args);
  if ('error' in parsed) {
    io.err(parsed.error);
    return EXIT.usage;
  }
  if (parsed.values['help']) {
    io.out(`regrid ${spec.name}: ${spec.summary}`);
    if (spec.devOnly && !command) io.out(`not available in this install: ${spec.devOnly}`);
    io.out(spec.passThrough && command?.help ? await passThroughHelp(spec, command.help) : spec.help); // prettier-ignore
    return EXIT.ok;
  }
  if (!command) {
    // A development command run by the product CLI: in a checkout the development CLI has it.
    io.err(
      devCheckout()
        ? `regrid ${spec.name} is a development command: in this checkout run it as ` +
            `\`npm run regrid -- ${spec.name}\` or \`npx regrid ${spec.name}\` (tools/cli.ts)`
        : devOnlyMessage(spec.name, spec.devOnly ?? ''),
    );
    return EXIT.unavailable;
  }
  try {
    const run = await command.load();
    return await run(parsed, io, args);
  } catch (err) {
    return failure(spec, err, io);
  }
}

async function passThroughHelp(spec: CommandSpec, help: () => Promise<string>): Promise<string> {
  try {
    return await help();
  } catch {
    return spec.help;
  }
}

function failure(spec: CommandSpec, err: unknown, io: Io): number {
  if (err instanceof UsageError) {
    io.err(`${err.message} (regrid ${spec.name} --help)`);
    return EXIT.usage;
  }
  if (isMissingModule(err)) {
    const message = err instanceof Error ? err.message : String(err);
    io.err(`regrid ${spec.name}: ${message}\n${devOnlyMessage(spec.name, spec.devOnly ?? '')}`);
    return EXIT.unavailable;
  }
  const { code, line } = failureOf(err);
  io.err(`regrid ${spec.name}: ${line}`);
  return code;
}
