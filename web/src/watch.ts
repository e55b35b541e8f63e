/**
 * Notices when the grid changed under the user (another device, another tab): every few seconds,
 * and whenever the window regains focus, it reads the first page's version (a cached read) at no
 * less than the version it knows. A newer version that none of this page's own writes explains
 * means someone else wrote: outside the edit mode the grid is reloaded; while editing it only
 * says so (Done replays the edits on the newer grid).
 */
import type { RegridClient } from '@regrid/client';
import type { Board } from './board.js';
import type { Live } from './live.js';
import { newerThan } from './order.js';
import type { Ui } from './ui.js';

export function watchForChanges(
  api: RegridClient,
  board: Board,
  live: Live,
  editing: () => boolean,
  ui: Ui,
  everyMs: number,
): void {
  let checking = false;
  const check = async () => {
    if (checking || live.busy || document.hidden) return;
    checking = true;
    const writes = live.writes;
    const known = board.version;
    try {
      const page = await api.gridPage(board.profileId, { limit: 1, min_version: known });
      const v = page.grid_version;
      if (live.writes !== writes || live.busy || !newerThan(v, board.version)) return;
      if (editing()) {
        ui.changedElsewhere(
          `The grid changed on another device (version ${v}). Done will replay your edits on it.`,
        );
        return;
      }
      await board.reload();
      ui.changedElsewhere(
        `The grid changed on another device: reloaded (version ${known} → ${board.version}).`,
      );
    } catch {
      // A failed check is retried at the next tick; the user's own actions report errors.
    } finally {
      checking = false;
    }
  };
  window.setInterval(() => void check(), everyMs);
  window.addEventListener('focus', () => void check());
  document.addEventListener('visibilitychange', () => void check());
}
