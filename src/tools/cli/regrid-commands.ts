/**
 * The `regrid` operator commands, separated from process start-up so tests run them in-process:
 *   regrid takedown <post_id>     remove a post from every grid it is on (moderation)
 *   regrid audit [--profile ID]   consistency audit; exit code 1 when anything is found
 *     [--every 10m [--times N]]   repeat it (N rounds, else until stopped); each round sets
 *                                 regrid_audit_findings{kind}; the exit code is the last round's
 *   regrid flags list             every operational flag, its value and whether a row is stored
 *   regrid flags set NAME on|off  flip a flag (docs/ops/rollout.md); other processes follow
 *                                 within the refresh bound
 * Returns the exit code; all output goes through `out` / `err`.
 */
import { describeFinding } from '../../domain/audit.js';
import { isDomainError } from '../../domain/errors.js';
import { parseId } from '../../domain/ids.js';
import type { GridService } from '../../service/grid-service.js';
import { auditRound, scheduleAudits, type AuditRound } from '../../service/read/audit-rounds.js';

export interface Io {
  out(line: string): void;
  err(line: string): void;
}

export const USAGE =
  'usage: regrid takedown <post_id> | ' +
  'regrid audit [--profile <profile_id>]... [--every <n>(ms|s|m|h) [--times <n>]] | ' +
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
  let everyMs: number | undefined;
  let times: number | undefined;
  for (let i = 0; i < args.length; i++) {
    const value = args[i + 1];
    if (args[i] === '--profile' && value !== undefined) only.push(parseId(args[++i]!, 'profile'));
    else if (args[i] === '--every' && value !== undefined && durationMs(value) !== undefined) {
      everyMs = durationMs(value);
      i++;
    } else if (args[i] === '--times' && value !== undefined && /^[1-9][0-9]{0,6}$/.test(value)) {
      times = Number(value);
      i++;
    } else {
      io.err(USAGE);
      return 64;
    }
  }
  const all = () => service.auditAll(only.length > 0 ? only : undefined);
  let code = 0;
  const report = (round: AuditRound) => {
    for (const p of round.dirty) {
      io.out(`profile ${p.profileId}:`);
      for (const f of p.findings) io.out(`  ${describeFinding(f)}`);
    }
    const n = round.dirty.length;
    io.out(`audited ${round.profiles} profile(s): ${n === 0 ? 'clean' : `${n} with findings`}`);
    code = n === 0 ? 0 : 1;
  };
  if (everyMs === undefined) {
    report(await auditRound(all));
    return code;
  }
  const schedule = scheduleAudits(all, {
    everyMs,
    ...(times !== undefined ? { times } : {}),
    onRound: report,
    onError: (e) => {
      io.err(`audit round failed: ${e instanceof Error ? e.message : String(e)}`);
      code = 2;
    },
  });
  await schedule.done;
  return code;
}

/** `10m`, `30s`, `1h`, `500ms`; a bare number is seconds. */
function durationMs(text: string): number | undefined {
  const m = /^([1-9][0-9]{0,6})(ms|s|m|h)?$/.exec(text);
  if (!m) return undefined;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] ?? 's']!;
  return Number(m[1]) * unit;
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
