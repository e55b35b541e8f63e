/**
 * The audit on a timer (`AUDIT_EVERY_S` in the server, `regrid audit --every` on the CLI): one
 * round audits every profile (audit.ts), and its counts by kind replace the gauge
 * `regrid_audit_findings{kind}` when the round completes, so the gauge always describes one
 * whole round, never a half-finished scan. Rounds never overlap: the next one is scheduled
 * after the previous one ends.
 */
import type { AuditFinding } from '../../domain/audit.js';
import { auditFindings } from '../../obs/metrics-platform.js';
import type { ProfileAudit } from './audit.js';

/** Every kind, so a clean round exports explicit zeros (an alert `> 0` then has a series). */
const KINDS: readonly AuditFinding['kind'][] = [
  'duplicate_key',
  'orphan_override',
  'orphan_pin',
  'merged_mismatch',
  'wrong_post_count',
  'orphan_post',
];

export interface AuditRound {
  readonly profiles: number;
  readonly dirty: readonly ProfileAudit[];
  readonly byKind: ReadonlyMap<string, number>;
}

type AuditAll = () => AsyncGenerator<ProfileAudit, { profiles: number }, undefined>;

/** Runs one full audit and publishes its counts. */
export async function auditRound(audit: AuditAll): Promise<AuditRound> {
  const it = audit();
  const dirty: ProfileAudit[] = [];
  const byKind = new Map<string, number>(KINDS.map((k) => [k, 0]));
  let step = await it.next();
  while (!step.done) {
    dirty.push(step.value);
    for (const f of step.value.findings) byKind.set(f.kind, (byKind.get(f.kind) ?? 0) + 1);
    step = await it.next();
  }
  auditFindings.reset();
  for (const [kind, n] of byKind) auditFindings.set({ kind }, n);
  return { profiles: step.value.profiles, dirty, byKind };
}

export interface AuditSchedule {
  /** Stops after the running round (if any); resolves when nothing runs any more. */
  stop(): Promise<void>;
  /** Resolves after the last round (`times` reached or stopped). */
  readonly done: Promise<void>;
}

export interface ScheduleOptions {
  readonly everyMs: number;
  /** Rounds to run; unbounded when absent. */
  readonly times?: number;
  readonly onRound?: (round: AuditRound, n: number) => void;
  /** A failed round is logged and the schedule goes on: the next round may well succeed. */
  readonly onError: (err: unknown) => void;
}

/** The first round runs at once, the next ones `everyMs` after the previous one ended. */
export function scheduleAudits(audit: AuditAll, opts: ScheduleOptions): AuditSchedule {
  let stopped = false;
  let wake: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
      timer.unref();
    });
  const done = (async () => {
    for (let n = 1; !stopped && (opts.times === undefined || n <= opts.times); n++) {
      try {
        // Run the round first: an optional call would skip evaluating its argument.
        const round = await auditRound(audit);
        opts.onRound?.(round, n);
      } catch (err) {
        opts.onError(err);
      }
      if (opts.times !== undefined && n >= opts.times) break;
      if (!stopped) await pause(opts.everyMs);
    }
  })();
  return {
    done,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      wake?.();
      await done;
    },
  };
}
