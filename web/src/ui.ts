/**
 * What the editor tells the user: a status line (polite live region), errors as readable
 * messages (alert), a banner when the grid changed elsewhere, the grid version, and a small
 * dialog for the one question a replay may have to ask.
 */
import { isRegridError } from '@regrid/client';

const $ = <T extends HTMLElement>(sel: string) => document.querySelector<T>(sel)!;

/** A sentence for an error, with the server's own words when it gave some. */
export function describe(err: unknown): string {
  if (!isRegridError(err)) return err instanceof Error ? err.message : String(err);
  switch (err.code) {
    case 'anchor_not_on_grid':
      return 'The post you dropped it next to is no longer on the grid. The grid was reloaded.';
    case 'post_pinned':
      return 'That post is pinned: unpin it before moving it.';
    case 'rate_limited':
      return 'Too many moves in a short time. Wait a little and try again.';
    case 'unauthorized':
      return 'Your sign-in is no longer valid. Please sign in again.';
    case 'network_error':
      return `The server did not answer (${err.detail ?? 'no response'}).`;
    default:
      return `${err.message} (${err.status} ${err.code})`;
  }
}

export class Ui {
  private readonly status = $('#status');
  private readonly error = $('#error');
  private readonly banner = $('#changed');
  private readonly version = $('#version');
  private readonly announcer = $('#announce');
  private errorTimer = 0;

  say(text: string): void {
    this.status.textContent = text;
  }

  announce(text: string): void {
    this.announcer.textContent = text;
  }

  fail(err: unknown): void {
    this.error.textContent = describe(err);
    this.error.hidden = false;
    window.clearTimeout(this.errorTimer);
    this.errorTimer = window.setTimeout(() => (this.error.hidden = true), 12_000);
  }

  clearError(): void {
    this.error.hidden = true;
  }

  changedElsewhere(text: string): void {
    this.banner.textContent = text;
    this.banner.hidden = false;
  }

  clearChanged(): void {
    this.banner.hidden = true;
  }

  showVersion(v: string): void {
    this.version.textContent = `version ${v}`;
    this.version.dataset.version = v;
  }

  /** Asks a question with two answers; resolves with the value of the button pressed. */
  choose<T extends string>(question: string, answers: { label: string; value: T }[]): Promise<T> {
    const dialog = $<HTMLDialogElement>('#ask');
    dialog.querySelector('p')!.textContent = question;
    const buttons = dialog.querySelector('.answers')!;
    buttons.replaceChildren();
    return new Promise((resolve) => {
      for (const a of answers) {
        const b = document.createElement('button');
        b.type = 'button';
        b.textContent = a.label;
        b.dataset.answer = a.value;
        b.onclick = () => {
          dialog.close();
          resolve(a.value);
        };
        buttons.append(b);
      }
      dialog.oncancel = (e) => e.preventDefault(); // an answer is needed
      dialog.showModal();
    });
  }
}
