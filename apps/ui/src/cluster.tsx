import { apiGet, path, query } from './api';
import { relativeTime, shortRevision } from './format';
import { StateBadge } from './state';
import type { Cluster, MatrixPage } from './types';
import { useData } from './use-data';

export function ClusterPage({ token, version, name }: { token: string; version: number; name: string }) {
  const data = useData(async () => {
    const [cluster, matrix] = await Promise.all([
      apiGet<Cluster>(token, path`/api/v1/clusters/${name}`),
      apiGet<MatrixPage>(token, '/api/v1/fleet/matrix' + query({ name, projects: 100, limit: 500 })),
    ]);
    return { cluster, cells: matrix.items.find((r) => r.cluster === name)?.cells ?? {} };
  }, [token, name, version]);
  if (data.error && !data.data) return <main id="main"><p role="alert" class="error">{data.error.message}</p></main>;
  if (!data.data) return <main id="main"><p class="muted">Loading {name}…</p></main>;
  const { cluster, cells } = data.data;
  const s = cluster.status;
  return (
    <main id="main">
      <nav class="crumbs" aria-label="Breadcrumb">
        <a href="#/">Fleet</a> › Cluster
      </nav>
      <h2>Cluster {cluster.name}</h2>
      <dl class="facts">
        <dt>Group</dt>
        <dd>{cluster.group}</dd>
        <dt>Mode</dt>
        <dd>{cluster.mode}</dd>
        {cluster.endpoint && (
          <>
            <dt>API server</dt>
            <dd>
              <code>{cluster.endpoint.server}</code>
            </dd>
          </>
        )}
        {cluster.agent && (
          <>
            <dt>Agent</dt>
            <dd class={cluster.agent.connected ? '' : 'warn'}>{agentConnection(cluster.agent)}</dd>
          </>
        )}
        <dt>Reachability</dt>
        <dd class={s.reachable === false ? 'warn' : ''}>
          {s.reachable === null ? 'not checked yet' : s.reachable ? 'reachable' : `unreachable${s.error ? `: ${s.error}` : ''}`}
          {s.lastChecked && <> (checked {relativeTime(s.lastChecked)})</>}
        </dd>
        <dt>Kubernetes</dt>
        <dd>{s.version ?? 'unknown'}</dd>
        <dt>Labels</dt>
        <dd>
          {Object.keys(cluster.labels).length === 0
            ? 'none'
            : Object.entries(cluster.labels).map(([k, v]) => (
                <code class="label" key={k}>
                  {k}={v}
                </code>
              ))}
        </dd>
      </dl>
      <h3>Projects on this cluster</h3>
      {Object.keys(cells).length === 0 ? (
        <p class="muted">No Project targets this cluster.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Project</th>
              <th scope="col">State</th>
              <th scope="col">Revision</th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(cells).map(([project, cell]) => (
              <tr key={project}>
                <th scope="row">
                  <a href={path`#/projects/${project}/targets/${cluster.name}`}>{project}</a>
                </th>
                <td>
                  <StateBadge state={cell.state} />
                </td>
                <td title={cell.revision ?? ''}>{shortRevision(cell.revision)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}

/** Connected or not, since when, and what the agent last said of itself. */
function agentConnection(a: NonNullable<Cluster['agent']>): string {
  if (!a.registered) return 'never connected: apply its install manifest in the cluster';
  const since = a.since ? ` ${relativeTime(a.since)}` : '';
  const about = [a.version && `agent ${a.version}`, a.lastHeartbeat && `last heartbeat ${relativeTime(a.lastHeartbeat)}`].filter(Boolean).join(', ');
  return `${a.connected ? 'connected' : 'disconnected'}${since}${about ? ` (${about})` : ''}`;
}
