/**
 * The editor's entry point: sign in (development token or a pasted one), load the grid, and wire
 * the gestures and buttons to the live writes or, in the edit mode, to the batch. `?poll=<ms>`
 * sets how often it checks for changes made elsewhere (default 4 s).
 */
import { createClient } from '@regrid/client';
import { askForToken, findSession, signOut, type Session } from './auth.js';
import { Batch } from './batch.js';
import { Board } from './board.js';
import { enableDrag } from './drag.js';
import { enableKeyboard } from './keyboard.js';
import { Live } from './live.js';
import { showArchive } from './archive.js';
import { Ui } from './ui.js';
import { watchForChanges } from './watch.js';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const ui = new Ui();
const signin = $<HTMLFormElement>('signin');

async function session(): Promise<Session> {
  return (
    (await findSession()) ??
    (await askForToken(signin, 'Paste a regrid token (a JWT whose sub is your profile ID).'))
  );
}

async function start(): Promise<void> {
  const s = await session();
  $('who').textContent = `profile ${s.profileId}`;
  let refused = false;
  // Reads, and writes with their Idempotency-Key, are retried twice when the server says "try
  // again" (503 + Retry-After, 409 in flight) or does not answer; the server applies a write once.
  const api = createClient({
    baseUrl: location.origin,
    token: () => s.token,
    retries: 2,
    onUnauthorized: () => {
      // The token expired or the server's secret changed (a restart in development).
      if (refused) return;
      refused = true;
      signOut();
      void askForToken(signin, 'The server refused the token (expired, or it restarted).').then(
        () => location.reload(),
      );
    },
  });
  const board = new Board(api, s.profileId, $<HTMLOListElement>('grid'), (v) => ui.showVersion(v));
  const undo = $<HTMLButtonElement>('undo');
  const live = new Live(api, board, ui, (n) => (undo.disabled = n === 0));
  const batch = new Batch(api, board, ui);
  let saving = false;

  const onDrop = (id: string, from: number, to: number) =>
    batch.active ? batch.record(id, from, to) : void live.move(id, from, to);
  const canMove = () => !saving;
  enableDrag(board, onDrop, canMove);
  enableKeyboard(
    board,
    onDrop,
    canMove,
    (t) => ui.announce(t),
    (id) => {
      if (!batch.active) void live.togglePin(id);
    },
  );

  board.list.addEventListener('click', (e) => {
    const btn = (e.target as HTMLElement).closest<HTMLButtonElement>('button[data-act]');
    const id = btn?.closest<HTMLElement>('.tile')?.dataset.postId;
    if (!btn || !id || batch.active) return;
    if (btn.dataset.act === 'pin') void live.togglePin(id);
    if (btn.dataset.act === 'archive') void live.archive(id);
  });

  const setEditing = (on: boolean) => {
    document.body.classList.toggle('editing', on);
    $('edit').hidden = on;
    $('done').hidden = !on;
    $('cancel').hidden = !on;
    for (const id of ['reset', 'show-archive']) $<HTMLButtonElement>(id).disabled = on;
    live.forgetUndo(); // after a batch, "the last move" is gone; while editing, Cancel undoes
    ui.clearChanged();
  };
  const guard = (fn: () => Promise<unknown>) => () => void fn().catch((err) => ui.fail(err));

  $('edit').onclick = guard(async () => {
    await batch.start();
    setEditing(true);
  });
  $('done').onclick = guard(async () => {
    saving = true;
    $<HTMLButtonElement>('done').disabled = true;
    try {
      await batch.done();
      setEditing(false);
    } finally {
      saving = false;
      $<HTMLButtonElement>('done').disabled = false;
    }
  });
  $('cancel').onclick = guard(async () => {
    await batch.cancel();
    setEditing(false);
  });
  undo.onclick = guard(() => live.undo());
  $('reset').onclick = guard(async () => {
    const ok = await ui.choose('Put every post back in chronological order? Pins stay.', [
      { label: 'Reset', value: 'yes' },
      { label: 'Keep my order', value: 'no' },
    ]);
    if (ok === 'yes') await live.reset();
  });
  const archivePanel = $('archive');
  $('show-archive').onclick = guard(async () => {
    archivePanel.hidden = !archivePanel.hidden;
    if (!archivePanel.hidden) {
      await showArchive(api, $<HTMLUListElement>('archive-list'), (id) => live.unarchive(id));
    }
  });
  $('signout').onclick = () => {
    signOut();
    location.reload();
  };

  new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting)) void board.loadMore().catch((err) => ui.fail(err));
  }).observe($('more'));

  const poll = Number(new URLSearchParams(location.search).get('poll') ?? '4000');
  watchForChanges(api, board, live, () => batch.active, ui, poll > 0 ? poll : 4000);

  await board.reload();
  document.body.dataset.ready = 'true';
  ui.say(
    board.posts.length ? 'Drag a tile to move it, or focus it and press Space.' : 'No posts yet.',
  );
}

start().catch((err: unknown) => ui.fail(err)); // a 401 already brought up the sign-in form
