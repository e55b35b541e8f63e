/**
 * `regrid <command>`: reads the command with node:util parseArgs, answers --help and --version
 * from plain data (command-specs.ts), and only then imports the command's module, so that help
 * and version never load a driver, read the configuration or connect anywhere. Exit codes:
 * exit-codes.ts (the table: docs/cli.md).
 */
import { parseArgs } from 'node:util';
import { version } from '../../obs/build-info.js';
import { parseCommandArgs, SPECS, type CommandSpec, type Parsed } from './command-specs.js';
import { devCheckout, devOnlyMessage, isMissingModule } from './dev-tooling.js';
import type { ErrorCode } from '../../domain/errors.js';
import { domainExit, EXIT, UsageError, unreachableLine } from './exit-codes.js';
import type { Io } from './regrid-commands.js';

type Run = (parsed: Parsed, io: Io, argv: readonly string[]) => Promise<number>;

/** Each command's module, imported when that command runs (never for --help). */
const LOADERS: Record<string, () => Promise<Run>> = {
  serve: async () => {
    await import('../../main.js');
    return () => new Promise<number>(() => undefined); // the server runs until it exits itself
  },
  migrate: async () => (await import('./cmd-migrate.js')).run,
  audit: async () => operator('audit'),
  takedown: async () => operator('takedown'),
  flags: async () => operator('flags'),
  import: async () => (await import('./cmd-import.js')).run,
  seed: async () => (await import('./cmd-seed.js')).run,
  cassandra: async () => (await import('./cmd-cassandra.js')).run,
  loadtest: async () => (await import('./cmd-loadtest.js')).run,
};

async function operator(name: 'audit' | 'takedown' | 'flags'): Promise<Run> {
  const { runConnected } = await import('./cmd-operator.js');
  return (parsed, io) => runConnected(name, parsed, io);
}

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
      : '[development checkout]: not available in this install (no devDependencies).',
    'Exit codes: 0 ok, 1 findings, 2 usage, 3 unavailable (docs/cli.md).',
    'Configuration: environment variables (docs/configuration.md).',
  ].join('\n');
}

/** Runs `argv` (what follows `regrid`); the exit code. */
export async function runCli(argv: readonly string[], io: Io): Promise<number> {
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
    io.err(`unknown option '${unknown.rawName}'\n\n${usage(devCheckout())}`);
    return EXIT.usage;
  }
  const asked = (name: string) => before.some((t) => t.kind === 'option' && t.name === name);
  if (asked('version')) {
    io.out(`regrid ${version}`);
    return EXIT.ok;
  }
  if (first === undefined || asked('help')) {
    if (first === undefined && !asked('help')) {
      io.err(usage(devCheckout()));
      return EXIT.usage;
    }
    io.out(usage(devCheckout()));
    return EXIT.ok;
  }
  const name = first.kind === 'positional' ? first.value : '';
  const spec = SPECS.find((s) => s.name === name);
  if (!spec) {
    io.err(`no command '${name}'\n\n${usage(devCheckout())}`);
    return EXIT.usage;
  }
  return runCommand(spec, argv.slice(first.index + 1), io);
}

async function runCommand(spec: CommandSpec, args: readonly string[], io: Io): Promise<number> {
  const parsed = parseCommandArgs(spec, args);
  if ('error' in parsed) {
    io.err(parsed.error);
    return EXIT.usage;
  }
  const dev = devCheckout();
  if (parsed.values['help']) {
    io.out(`regrid ${spec.name}: ${spec.summary}`);
    if (spec.devOnly && !dev) io.out(`not available in this install: ${spec.devOnly}`);
    io.out(spec.passThrough && dev ? await passThroughHelp(spec) : spec.help);
    return EXIT.ok;
  }
  if (spec.devOnly && !dev) {
    io.err(devOnlyMessage(spec.name, spec.devOnly));
    return EXIT.unavailable;
  }
  try {
    const run = await LOADERS[spec.name]!();
    return await run(parsed, io, args);
  } catch (err) {
    return failure(spec, err, io);
  }
}

async function passThroughHelp(spec: CommandSpec): Promise<string> {
  try {
    return (await import('../loadtest/usage.js')).USAGE;
  } catch {
    return spec.help;
  }
}

function failure(spec: CommandSpec, err: unknown, io: Io): number {
  if (err instanceof UsageError) {
    io.err(`${err.message} (regrid ${spec.name} --help)`);
    return EXIT.usage;
  }
  const unreachable = unreachableLine(err);
  if (unreachable) {
    io.err(`regrid ${spec.name}: ${unreachable}`);
    return EXIT.unavailable;
  }
  const message = err instanceof Error ? err.message : String(err);
  if ((err as { name?: string } | null)?.name === 'LocalRingUnavailable') {
    io.err(`regrid ${spec.name}: ${message}`);
    return EXIT.unavailable;
  }
  if (isMissingModule(err)) {
    io.err(`regrid ${spec.name}: ${message}\n${devOnlyMessage(spec.name, spec.devOnly ?? '')}`);
    return EXIT.unavailable;
  }
  if (message.startsWith('invalid configuration')) {
    io.err(message);
    return EXIT.usage;
  }
  const domain = err as { name?: string; code?: string } | null;
  if (domain?.name === 'DomainError') {
    io.err(`regrid ${spec.name}: ${domain.code}: ${message}`);
    return domainExit(domain.code as ErrorCode);
  }
  io.err(`regrid ${spec.name} failed: ${message}`);
  return EXIT.findings;
}
