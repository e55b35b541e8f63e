import { describe, expect, it } from 'vitest';
import { registry } from '../../../src/obs/registry.js';
import { scheduleAudits } from '../../../src/service/read/audit-rounds.js';
import type { ProfileAudit } from '../../../src/service/read/audit.js';

describe('scheduled audits', () => {
  it('run every round and publish the gauge without an onRound callback (as the server does)', async () => {
    let rounds = 0;
    async function* audit(): AsyncGenerator<ProfileAudit, { profiles: number }, undefined> {
      rounds += 1;
      yield { profileId: 7n, findings: [{ kind: 'orphan_pin', postId: 1n }] };
      return { profiles: 3 };
    }
    const errors: unknown[] = [];
    const schedule = scheduleAudits(audit, {
      everyMs: 5,
      times: 2,
      onError: (e) => errors.push(e),
    });
    await schedule.done;
    expect(errors).toEqual([]);
    expect(rounds).toBe(2);
    const text = await registry.metrics();
    expect(text).toMatch(/^regrid_audit_findings\{kind="orphan_pin"\} 1$/m);
    expect(text).toMatch(/^regrid_audit_findings\{kind="duplicate_key"\} 0$/m);
  });
});
