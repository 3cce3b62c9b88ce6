// The token lives in sessionStorage only: it ends with the browser tab's
// session, is never written to a URL, a cookie or localStorage.
const KEY = 'flotilla.token';

export function storedToken(): string | null {
  return sessionStorage.getItem(KEY);
}

export function storeToken(token: string): void {
  sessionStorage.setItem(KEY, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
}

const VIEW_KEY = 'flotilla.view';

/** The view (a hash route of this page) to come back to after signing in again. */
export function rememberView(hash: string): void {
  sessionStorage.setItem(VIEW_KEY, hash);
}

/** The view remembered before a sign-in, once; the overview when there is none. */
export function takeView(): string {
  const view = sessionStorage.getItem(VIEW_KEY);
  sessionStorage.removeItem(VIEW_KEY);
  return view && /^#\/[^#]*$/.test(view) && view !== '#/sso' ? view : '#/';
}
