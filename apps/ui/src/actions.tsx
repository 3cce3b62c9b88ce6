import { useState } from 'preact/hooks';
import { apiCall, path, query } from './api';
import type { Role } from './types';

export const canOperate = (role: Role) => role === 'operator' || role === 'admin';

/**
 * Reconcile now, suspend, resume: shown to operators only (the API refuses
 * viewers anyway). The outcome is announced to screen readers.
 */
export function ProjectActions({ token, role, project, cluster, suspended }: { token: string; role: Role; project: string; cluster?: string; suspended: boolean }) {
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState('');
  if (!canOperate(role)) return <p class="muted">Signed in as a viewer: actions need an operator token.</p>;
  const act = async (action: 'reconcile' | 'suspend' | 'resume', label: string) => {
    setBusy(true);
    setMessage('');
    try {
      const q = action === 'reconcile' ? query({ cluster }) : '';
      await apiCall(token, 'POST', path`/api/v1/projects/${project}/` + action + q);
      setMessage(`${label}: requested`);
    } catch (err) {
      setMessage(`${label} failed: ${(err as Error).message}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="actions">
      <button type="button" disabled={busy || suspended} onClick={() => act('reconcile', 'Reconcile now')}>
        Reconcile now
      </button>
      {!cluster &&
        (suspended ? (
          <button type="button" disabled={busy} onClick={() => act('resume', 'Resume')}>
            Resume
          </button>
        ) : (
          <button type="button" disabled={busy} onClick={() => act('suspend', 'Suspend')}>
            Suspend
          </button>
        ))}
      <span role="status" class="action-message">
        {message}
      </span>
    </div>
  );
}
