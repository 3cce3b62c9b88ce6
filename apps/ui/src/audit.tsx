import { useEffect, useState } from 'preact/hooks';
import { apiGet, query } from './api';
import { relativeTime } from './format';
import type { AuditEntry, AuditPage } from './types';

const PAGE = 100;

/** The audit log for admins: newest first, filtered by actor and object, older pages on request. */
export function AuditLog({ token }: { token: string }) {
  const [actor, setActor] = useState('');
  const [object, setObject] = useState('');
  const [entries, setEntries] = useState<AuditEntry[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState('');
  const [loading, setLoading] = useState(true);

  const load = async (from: string | null, append: boolean) => {
    setLoading(true);
    try {
      const page = await apiGet<AuditPage>(token, '/api/v1/audit' + query({ actor: actor.trim(), object: object.trim(), limit: PAGE, continue: from ?? undefined }));
      setEntries((e) => (append ? [...e, ...page.items] : page.items));
      setNext(page.continue);
      setError('');
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setLoading(false);
    }
  };

  // a new filter starts from the newest entry again
  useEffect(() => {
    void load(null, false);
  }, [token, actor, object]);

  return (
    <main id="main">
      <nav class="crumbs" aria-label="Breadcrumb">
        <a href="#/">Fleet</a> › Audit
      </nav>
      <h2>Audit log</h2>
      <p class="muted">Every change and every refused request, newest first. Entries cannot be edited or deleted; they leave only after the hub's retention.</p>
      <div class="filters">
        <label>
          Actor
          <input type="search" value={actor} placeholder="token name or id" onInput={(e) => setActor((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          Object
          <input type="search" value={object} placeholder="project/web or project" onInput={(e) => setObject((e.target as HTMLInputElement).value)} />
        </label>
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {!error && entries.length === 0 && !loading && <p class="muted">No entries.</p>}
      {entries.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption>Audit entries</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Actor</th>
                <th scope="col">Action</th>
                <th scope="col">Object</th>
                <th scope="col" class="num">Outcome</th>
                <th scope="col">Source</th>
                <th scope="col">Request</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.id}>
                  <td title={e.at}>{relativeTime(e.at)}</td>
                  <td title={`${e.actor.kind} ${e.actor.id}`}>{e.actor.email ?? e.actor.name}</td>
                  <td>
                    <code>{e.action}</code>
                  </td>
                  <td>{e.object ?? '—'}</td>
                  <td class={`num ${e.outcome >= 400 ? 'warn' : ''}`}>{e.outcome}</td>
                  <td>{e.sourceAddress ?? '—'}</td>
                  <td>
                    <code>{e.requestId}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next && (
        <p class="pager">
          <button type="button" disabled={loading} onClick={() => void load(next, true)}>
            Older entries
          </button>
        </p>
      )}
    </main>
  );
}
