/**
 * The statement scope of a group commit's conditional batch (service/write-line/commit.ts). One
 * batch writes for every request of the group, so, as seen by each request's deadline
 * (src/http/deadline.ts), it is a write that request sent:
 *   - sending it counts as a write in every request's scope, so a deadline that fires from then
 *     on answers "outcome unknown", never "not applied"; a lost compare-and-set takes it back;
 *   - it is refused (not sent) while any of them is sealed, i.e. already answered "not applied"
 *     (the writer then drops that request and re-plans the group without it).
 * A batch for one request (and not traced) needs none: it is sent in that request's own scope.
 */
import { StatementScope } from './statement-scope.js';

export class GroupScope extends StatementScope {
  private sent = 0;

  constructor(private readonly scopes: readonly StatementScope[]) {
    super();
  }

  override get mayHaveWritten(): boolean {
    return this.sent > 0;
  }

  override get sealed(): boolean {
    return this.scopes.some((s) => s.sealed);
  }

  override seal(): void {
    throw new Error('a group scope is sealed through the scopes of its requests');
  }

  override writeSent(): void {
    this.sent += 1;
    for (const s of this.scopes) s.writeSent();
  }

  override writeNotApplied(): void {
    this.sent -= 1;
    for (const s of this.scopes) s.writeNotApplied();
  }
}
