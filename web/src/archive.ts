/**
 * The archive panel: the owner's archived posts (GET /v1/me/archive, newest archived first), each
 * with an Unarchive button that puts the post back where it was.
 */
import type { RegridClient } from '@regrid/client';

export async function showArchive(
  api: RegridClient,
  list: HTMLUListElement,
  onUnarchive: (postId: string) => Promise<unknown>,
): Promise<void> {
  const body = await api.archivePage({ limit: 100 });
  list.replaceChildren();
  if (body.data.length === 0) {
    const li = document.createElement('li');
    li.textContent = 'Nothing archived.';
    list.append(li);
  }
  for (const { post } of body.data) {
    const li = document.createElement('li');
    li.dataset.postId = post.id;
    const label = document.createElement('span');
    label.textContent = post.caption ?? post.id;
    const btn = document.createElement('button');
    btn.type = 'button';
    btn.textContent = 'Unarchive';
    btn.onclick = async () => {
      btn.disabled = true;
      await onUnarchive(post.id);
      li.remove();
    };
    li.append(label, btn);
    list.append(li);
  }
}
