/**
 * The `regrid` operator commands, separated from process start-up so tests run them in-process:
 *   regrid takedown <post_id>     remove a post from every grid it is on (moderation)
 *   regrid audit [--profile ID]   consistency audit; exit code 1 when anything is found
 *   regrid flags list             every operational flag, its value and whether a row is stored
 *   regrid flags set NAME on|off  flip a flag (docs/ops/rollout.md); other processes follow
 *                                 within the refresh bound
 * Returns the exit code; all output goes through `out` / `err`.
 */
import { describeFinding } from '../../domain/audit.js';
import { isDomainError } from '../../domain/errors.js';
import { parseId } from '../../domain/ids.js';
import type { GridService } from '../../service/grid-service.js';

export interface Io {
  out(line: string): void;
  err(line: string): void;
}

export const USAGE =
  'usage: regrid takedown <post_id> | regrid audit [--profile <profile_id>]... | ' +
  'regrid flags list | regrid flags set <name> on|off';

export async function runRegrid(
  argv: readonly string[],
  service: GridService,
  io: Io,
): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === 'takedown' && rest.length === 1) return await takedown(rest[0]!, service, io);
    if (command === 'audit') return await audit(rest, service, io);
    if (command === 'flags') {
      const code = await flags(rest, service, io);
      if (code !== undefined) return code;
    }
  } catch (e) {
    if (isDomainError(e)) {
      io.err(`${e.code}: ${e.message}`);
      return 2;
    }
    throw e;
  }
  io.err(USAGE);
  return 64; // EX_USAGE
}

async function takedown(arg: string, service: GridService, io: Io): Promise<number> {
  const postId = parseId(arg, 'post_id');
  const out = await service.takedown(postId);
  io.out(`post ${postId} taken down from ${out.grids.length} grid(s)`);
  for (const g of out.grids) io.out(`  profile ${g.profileId}: grid version ${g.version}`);
  return 0;
}

async function audit(args: readonly string[], service: GridService, io: Io): Promise<number> {
  const only: bigint[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--profile' && args[i + 1] !== undefined)
      only.push(parseId(args[++i]!, 'profile'));
    else {
      io.err(USAGE);
      return 64;
    }
  }
  const it = service.auditAll(only.length > 0 ? only : undefined);
  let dirty = 0;
  let step = await it.next();
  while (!step.done) {
    dirty += 1;
    io.out(`profile ${step.value.profileId}:`);
    for (const f of step.value.findings) io.out(`  ${describeFinding(f)}`);
    step = await it.next();
  }
  io.out(
    `audited ${step.value.profiles} profile(s): ${dirty === 0 ? 'clean' : `${dirty} with findings`}`,
  );
  return dirty === 0 ? 0 : 1;
}

const SWITCH: Record<string, boolean> = { on: true, true: true, off: false, false: false };

async function flags(args: readonly string[], service: GridService, io: Io) {
  const [sub, name, value] = args;
  if (sub === 'list' && args.length === 1) {
    for (const f of await service.flags.list()) {
      io.out(`${f.name}\t${f.enabled ? 'on' : 'off'}${f.stored ? '' : '\t(default)'}`);
    }
    return 0;
  }
  const enabled = value === undefined ? undefined : SWITCH[value];
  if (sub === 'set' && name !== undefined && enabled !== undefined && args.length === 3) {
    const f = await service.flags.set(name, enabled);
    io.out(`${f.name} ${f.enabled ? 'on' : 'off'}`);
    io.out(`every process follows within ${service.flags.boundMs} ms (FLAGS_REFRESH_MS × 2)`);
    return 0;
  }
  return undefined;
}
