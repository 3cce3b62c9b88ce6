import { useEffect, useState } from 'preact/hooks';
import { ApiError, apiGet, collectSignIn } from './api';
import { AuditLog } from './audit';
import { ClusterPage } from './cluster';
import { followFleet, type LiveState } from './live';
import { Overview } from './overview';
import { ProjectPage } from './project';
import { forgetToken, rememberView, storedToken, storeToken, takeView } from './session';
import { TargetPage } from './target';
import type { Session } from './types';

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

function SignIn({ onSession, problem }: { onSession: (token: string, s: Session) => void; problem?: string }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState(problem ?? '');
  const [busy, setBusy] = useState(false);
  const [sso, setSso] = useState(false);
  // a hub with single sign-on says so on a public route
  useEffect(() => {
    apiGet<unknown>('', '/api/v1/auth/oidc').then(
      () => setSso(true),
      () => setSso(false),
    );
  }, []);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      onSession(token, await apiGet<Session>(token, '/api/v1/session'));
    } catch (err) {
      setError(err instanceof ApiError && err.status === 401 ? 'This token was refused. Check it and try again.' : (err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="signin">
      <h2>Sign in</h2>
      {sso && (
        <p>
          <a class="button" href="/auth/oidc/login">
            Sign in with single sign-on
          </a>
        </p>
      )}
      <p>{sso ? 'Or paste' : 'Paste'} an API token: the admin token the hub printed at its first start, or one an admin created with <code>POST /api/v1/tokens</code>. It is kept for this browser tab only.</p>
      <form onSubmit={submit}>
        <label>
          API token
          <input type="password" name="token" autocomplete="off" required value={token} onInput={(e) => setToken((e.target as HTMLInputElement).value.trim())} />
        </label>
        <button type="submit" disabled={busy || !token}>
          Sign in
        </button>
      </form>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </main>
  );
}

const LIVE_TEXT: Record<LiveState, string> = { connecting: 'Connecting…', live: 'Live', offline: 'Offline, retrying' };

function Route({ hash, token, session, version }: { hash: string; token: string; session: Session; version: number }) {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'projects' && parts[1] && parts[2] === 'targets' && parts[3]) return <TargetPage key={hash} token={token} role={session.role} version={version} project={parts[1]} cluster={parts[3]} />;
  if (parts[0] === 'projects' && parts[1]) return <ProjectPage key={hash} token={token} role={session.role} version={version} name={parts[1]} />;
  if (parts[0] === 'audit' && session.role === 'admin') return <AuditLog token={token} />;
  if (parts[0] === 'clusters' && parts[1]) return <ClusterPage key={hash} token={token} version={version} name={parts[1]} />;
  return <Overview token={token} version={version} />;
}

export function App() {
  const hash = useHash();
  const [token, setToken] = useState<string | null>(storedToken());
  const [session, setSession] = useState<Session | null>(null);
  const [problem, setProblem] = useState<string>();
  const [live, setLive] = useState<LiveState>('connecting');
  const [version, setVersion] = useState(0);
  const [signingIn, setSigningIn] = useState(false);

  // back from single sign-on (#/sso): collect the token the hub left in an HttpOnly cookie, once
  useEffect(() => {
    if (token || location.hash !== '#/sso') return;
    setSigningIn(true);
    collectSignIn().then(
      (t) => {
        storeToken(t);
        setToken(t);
        location.hash = takeView();
      },
      (err: Error) => {
        setProblem(`Single sign-on did not complete: ${err.message}`);
        location.hash = '#/';
      },
    );
  }, []);

  // a token kept from earlier in this tab: check it is still valid
  useEffect(() => {
    if (!token || session) return;
    apiGet<Session>(token, '/api/v1/session').then(setSession, (err: unknown) => {
      forgetToken();
      setToken(null);
      // a signed-in person whose groups have no binding hears why
      setProblem(err instanceof ApiError && err.status === 403 ? err.message : 'Your token is no longer accepted; sign in again.');
    });
  }, [token, session]);

  // no token: where the hub lets anyone read, show the fleet as an anonymous viewer ('' is that token)
  useEffect(() => {
    if (token !== null || signingIn) return;
    apiGet<Session>('', '/api/v1/session').then(
      (s) => {
        setToken('');
        setSession(s);
      },
      () => undefined,
    );
  }, [token, signingIn]);

  // a single sign-on token is renewed before it expires: with the provider's session still open the round
  // trip asks nothing, and the page comes back to the same view (never sooner than 20 s, so a provider
  // handing out very short tokens cannot send the page round in a loop)
  useEffect(() => {
    if (!token || !session?.singleSignOn || !session.expiresAt) return;
    const left = Date.parse(session.expiresAt) - Date.now();
    const renew = () => {
      rememberView(location.hash);
      forgetToken();
      location.assign('/auth/oidc/login');
    };
    const delay = Math.max(20_000, left - Math.min(60_000, left / 4));
    // past what a timer can hold (24.8 days) it would fire at once
    if (delay > 2_147_483_647) return;
    const timer = setTimeout(renew, delay);
    return () => clearTimeout(timer);
  }, [token, session]);

  useEffect(() => {
    if (token === null || !session) return;
    const stop = new AbortController();
    void followFleet(token, stop.signal, setLive, () => setVersion((v) => v + 1));
    return () => stop.abort();
  }, [token, session]);

  const signOut = () => {
    forgetToken();
    setToken(null);
    setSession(null);
    // signing out of a token shows the sign-in form, not the anonymous view again
    setSigningIn(true);
  };
  const anonymous = token === '';

  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header>
        <h1>
          <a href="#/">Flotilla</a> <span>fleet status</span>
        </h1>
        {session && (
          <div class="who">
            <span class={`live live-${live}`} role="status">
              <span aria-hidden="true">●</span> {LIVE_TEXT[live]}
            </span>
            {session.role === 'admin' && (
              <a class="nav" href="#/audit">
                Audit
              </a>
            )}
            <span>
              {session.name} ({session.tenants ? Object.entries(session.tenants).map(([t, r]) => `${r} in ${t}`).join(', ') : session.role})
            </span>
            <button type="button" onClick={signOut}>
              {anonymous ? 'Sign in' : 'Sign out'}
            </button>
          </div>
        )}
      </header>
      {token !== null && session ? (
        <Route hash={hash} token={token} session={session} version={version} />
      ) : token ? (
        <main id="main">
          <p class="muted">Checking your token…</p>
        </main>
      ) : (
        <SignIn
          problem={problem}
          onSession={(t, s) => {
            storeToken(t);
            setToken(t);
            setSession(s);
            setSigningIn(false);
          }}
        />
      )}
    </>
  );
}
