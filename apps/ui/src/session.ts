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
