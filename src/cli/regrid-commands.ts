/**
 * The operator commands `takedown`, `audit` and `flags` over a GridService, separated from
 * connecting (cmd-operator.ts) so tests run them in-process (the options are in command-specs.ts):
 *   regrid takedown <post_id>     remove a post from every grid it is on (moderation)
 *   regrid audit [--profile ID]   consistency audit; exit code 1 when anything is found
 *     [--every 10m [--times N]]   repeat it (N rounds, else until stopped); each round sets
 *                                 regrid_audit_findings{kind}; the exit code is the last round's
 *   regrid flags list             every operational flag, its value and whether a row is stored
 *   regrid flags set NAME on|off  flip a flag (docs/ops/rollout.md); other processes follow
 *                                 within the refresh bound
 * Returns the exit code (exit-codes.ts); all output goes through `out` / `err`.
 */
import { describeFinding } from '../domain/audit.js';
import { parseId } from '../domain/ids.js';
import type { GridService } from '../service/grid-service.js';
import { auditRound, scheduleAudits, type AuditRound } from '../service/read/audit-rounds.js';
import type { Parsed } from './command-specs.js';
import { EXIT, UsageError } from './exit-codes.js';

export interface Io {
  out(line: string): void;
  err(line: string): void;
}

export type OperatorCommand = 'takedown' | 'audit' | 'flags';

/** Checks the arguments (throws UsageError) before anything connects; then runs. */
export function prepareOperator(
  command: OperatorCommand,
  args: Parsed,
): (service: GridService, io: Io) => Promise<number> {
  if (command === 'takedown') return takedown(args);
  if (command === 'audit') return audit(args);
  return flags(args);
}

function takedown({ values, positionals }: Parsed) {
  if (positionals.length !== 1) throw new UsageError('takedown takes exactly one <post_id>');
  const postId = parseId(positionals[0]!, 'post_id');
  return async (service: GridService, io: Io) => {
    const out = await service.takedown(postId);
    if (values['json']) {
      const grids = out.grids.map((g) => ({
        profile_id: g.profileId.toString(),
        version: g.version.toString(),
      }));
      io.out(JSON.stringify({ post_id: postId.toString(), grids }));
      return EXIT.ok;
    }
    io.out(`post ${postId} taken down from ${out.grids.length} grid(s)`);
    for (const g of out.grids) io.out(`  profile ${g.profileId}: grid version ${g.version}`);
    return EXIT.ok;
  };
}

function audit({ values, positionals }: Parsed) {
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const only = ((values['profile'] as string[] | undefined) ?? []).map((p) =>
    parseId(p, 'profile'),
  );
  const every = values['every'] as string | undefined;
  const everyMs = every === undefined ? undefined : durationMs(every);
  if (every !== undefined && everyMs === undefined) {
    throw new UsageError(`--every takes <n>(ms|s|m|h), not '${every}'`);
  }
  const timesText = values['times'] as string | undefined;
  if (timesText !== undefined && !/^[1-9][0-9]{0,6}$/.test(timesText)) {
    throw new UsageError(`--times takes a positive integer, not '${timesText}'`);
  }
  if (timesText !== undefined && everyMs === undefined)
    throw new UsageError('--times needs --every');
  const json = values['json'] === true;
  return async (service: GridService, io: Io) => {
    const all = () => service.auditAll(only.length > 0 ? only : undefined);
    let code: number = EXIT.ok;
    const report = (round: AuditRound) => {
      const n = round.dirty.length;
      code = n === 0 ? EXIT.ok : EXIT.findings;
      if (json) {
        const dirty = round.dirty.map((p) => ({
          profile_id: p.profileId.toString(),
          findings: p.findings.map((f) => describeFinding(f)),
        }));
        io.out(JSON.stringify({ profiles: round.profiles, dirty }));
        return;
      }
      for (const p of round.dirty) {
        io.out(`profile ${p.profileId}:`);
        for (const f of p.findings) io.out(`  ${describeFinding(f)}`);
      }
      io.out(`audited ${round.profiles} profile(s): ${n === 0 ? 'clean' : `${n} with findings`}`);
    };
    if (everyMs === undefined) {
      report(await auditRound(all));
      return code;
    }
    const schedule = scheduleAudits(all, {
      everyMs,
      ...(timesText !== undefined ? { times: Number(timesText) } : {}),
      onRound: report,
      onError: (e) => {
        io.err(`audit round failed: ${e instanceof Error ? e.message : String(e)}`);
        code = EXIT.unavailable;
      },
    });
    await schedule.done;
    return code;
  };
}

/** `10m`, `30s`, `1h`, `500ms`; a bare number is seconds. */
function durationMs(text: string): number | undefined {
  const m = /^([1-9][0-9]{0,6})(ms|s|m|h)?$/.exec(text);
  if (!m) return undefined;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] ?? 's']!;
  return Number(m[1]) * unit;
}

const SWITCH: Record<string, boolean> = { on: true, true: true, off: false, false: false };

function flags({ values, positionals }: Parsed) {
  const [sub, name, value] = positionals;
  const json = values['json'] === true;
  if (sub === 'list' && positionals.length === 1) {
    return async (service: GridService, io: Io) => {
      const all = await service.flags.list();
      if (json) io.out(JSON.stringify({ flags: all }));
      for (const f of json ? [] : all) {
        io.out(`${f.name}\t${f.enabled ? 'on' : 'off'}${f.stored ? '' : '\t(default)'}`);
      }
      return EXIT.ok;
    };
  }
  const enabled = value === undefined ? undefined : SWITCH[value];
  if (sub !== 'set' || name === undefined || enabled === undefined || positionals.length !== 3) {
    throw new UsageError('flags takes: list | set <name> on|off');
  }
  return async (service: GridService, io: Io) => {
    const f = await service.flags.set(name, enabled);
    if (json) io.out(JSON.stringify({ flag: f, bound_ms: service.flags.boundMs }));
    else {
      io.out(`${f.name} ${f.enabled ? 'on' : 'off'}`);
      io.out(`every process follows within ${service.flags.boundMs} ms (FLAGS_REFRESH_MS × 2)`);
    }
    return EXIT.ok;
  };
}
