/**
 * Who is editing. A token comes from, in this order: `#token=` in the address (then removed from
 * it), the one saved in localStorage, the development endpoint (POST /dev/token, which exists only
 * when the server generated its JWT secret, i.e. no AUTH_JWT_SECRET is configured), or the user
 * pasting one into the sign-in form. The profile is the token's `sub`.
 */
import { createClient } from '@regrid/client';

const KEY = 'regrid.token';

export interface Session {
  readonly token: string;
  readonly profileId: string;
}

/** The token's claims, decoded (not verified: the server does that on every request). */
function sessionOf(token: string): Session | undefined {
  const part = token.trim().split('.')[1];
  if (!part) return undefined;
  try {
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
    const claims = JSON.parse(json) as { sub?: unknown; exp?: unknown };
    if (typeof claims.sub !== 'string' || !/^[1-9][0-9]*$/.test(claims.sub)) return undefined;
    if (typeof claims.exp === 'number' && claims.exp * 1000 <= Date.now()) return undefined;
    return { token: token.trim(), profileId: claims.sub };
  } catch {
    return undefined;
  }
}

export function saveToken(token: string): Session | undefined {
  const s = sessionOf(token);
  if (s) localStorage.setItem(KEY, s.token);
  return s;
}

export function signOut(): void {
  localStorage.removeItem(KEY);
}

async function devToken(): Promise<string | undefined> {
  try {
    return (await createClient({ baseUrl: location.origin }).call('devToken')).data.token;
  } catch {
    return undefined; // 404: a configured secret, no development sign-in
  }
}

/** A usable session without asking the user, if there is one. */
export async function findSession(): Promise<Session | undefined> {
  const hash = new URLSearchParams(location.hash.slice(1)).get('token');
  if (hash) {
    history.replaceState(null, '', location.pathname + location.search);
    const s = saveToken(hash);
    if (s) return s;
  }
  const stored = localStorage.getItem(KEY);
  const s = stored ? sessionOf(stored) : undefined;
  if (s) return s;
  signOut();
  const dev = await devToken();
  return dev ? saveToken(dev) : undefined;
}

/** Shows the paste-a-token form and resolves once a well-formed token was given. */
export function askForToken(form: HTMLFormElement, reason: string): Promise<Session> {
  form.hidden = false;
  const input = form.querySelector('textarea')!;
  const note = form.querySelector('.signin-note')!;
  note.textContent = reason;
  return new Promise((resolve) => {
    form.onsubmit = (e) => {
      e.preventDefault();
      const s = saveToken(input.value);
      if (!s) {
        note.textContent = 'That is not a current regrid token (a JWT whose sub is a profile ID).';
        return;
      }
      form.hidden = true;
      resolve(s);
    };
  });
}
