/**
 * `regrid takedown | audit | flags` in-process over a test's GridService: the arguments parsed as
 * the CLI parses them (src/cli/command-specs.ts), the command run as src/cli/cmd-operator.ts runs
 * it once connected, and its failure turned into the exit code as src/cli/cli-main.ts does.
 */
import { parseCommandArgs, specOf } from '../../../src/cli/command-specs.js';
import { EXIT, failureOf, UsageError } from '../../../src/cli/exit-codes.js';
import {
  prepareOperator,
  type Io,
  type OperatorCommand,
} from '../../../src/cli/regrid-commands.js';
import type { GridService } from '../../../src/service/grid-service.js';

/** `argv` = [command, ...its arguments], as typed after `regrid`; resolves to the exit code. */
export async function runRegrid(
  argv: readonly string[],
  service: GridService,
  io: Io,
): Promise<number> {
  const [command = '', ...rest] = argv;
  const parsed = parseCommandArgs(specOf(command), rest);
  if ('error' in parsed) {
    io.err(parsed.error);
    return EXIT.usage;
  }
  try {
    return await prepareOperator(command as OperatorCommand, parsed)(service, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`${err.message} (regrid ${command} --help)`);
      return EXIT.usage;
    }
    const { code, line } = failureOf(err);
    io.err(`regrid ${command}: ${line}`);
    return code;
  }
}
