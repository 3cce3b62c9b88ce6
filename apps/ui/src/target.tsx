import { ProjectActions } from './actions';
import { apiGet, path } from './api';
import { duration, relativeTime, shortRevision } from './format';
import { StateBadge, stateOfTarget } from './state';
import type { HubEvent, Page, Project, Role, Run, Target } from './types';
import { useData } from './use-data';

export function TargetPage({ token, role, version, project, cluster }: { token: string; role: Role; version: number; project: string; cluster: string }) {
  const data = useData(async () => {
    const [p, target, runs, events] = await Promise.all([
      apiGet<Project>(token, path`/api/v1/projects/${project}`),
      apiGet<Target>(token, path`/api/v1/projects/${project}/targets/${cluster}`),
      apiGet<Page<Run>>(token, path`/api/v1/projects/${project}/targets/${cluster}/runs?limit=10`),
      apiGet<Page<HubEvent>>(token, path`/api/v1/projects/${project}/events?limit=20&cluster=${cluster}`),
    ]);
    return { suspended: p.suspend, target, runs: runs.items, events: events.items };
  }, [token, project, cluster, version]);
  if (data.error && !data.data) return <main id="main"><p role="alert" class="error">{data.error.message}</p></main>;
  if (!data.data) return <main id="main"><p class="muted">Loading…</p></main>;
  const { target: t, runs, events, suspended } = data.data;
  return (
    <main id="main">
      <nav class="crumbs" aria-label="Breadcrumb">
        <a href="#/">Fleet</a> › <a href={path`#/projects/${project}`}>{project}</a> › <a href={path`#/clusters/${cluster}`}>{cluster}</a>
      </nav>
      <h2>
        {project} on {cluster} <StateBadge state={stateOfTarget(t.phase, t.conditions)} />
      </h2>
      <dl class="facts">
        <dt>Revision</dt>
        <dd title={t.lastAppliedRevision ?? ''}>{shortRevision(t.lastAppliedRevision)}</dd>
        <dt>Generation</dt>
        <dd>
          {t.observedGeneration ?? '—'} of {t.generation}
        </dd>
        <dt>Next run</dt>
        <dd>
          {relativeTime(t.nextRunAt)}
          {t.attempt > 0 && ` (retry ${t.attempt})`}
        </dd>
      </dl>
      <ProjectActions token={token} role={role} project={project} cluster={cluster} suspended={suspended} />
      <h3>Conditions</h3>
      <table>
        <thead>
          <tr>
            <th scope="col">Type</th>
            <th scope="col">Status</th>
            <th scope="col">Reason</th>
            <th scope="col">Message</th>
          </tr>
        </thead>
        <tbody>
          {t.conditions.map((c) => (
            <tr key={c.type}>
              <th scope="row">{c.type}</th>
              <td>{c.status}</td>
              <td>{c.reason}</td>
              <td class="message">{c.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Components and instances</h3>
      {t.components.length === 0 ? (
        <p class="muted">Nothing applied yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Component</th>
              <th scope="col">Instance</th>
              <th scope="col">Objects</th>
              <th scope="col">Ready</th>
              <th scope="col">Changes</th>
            </tr>
          </thead>
          <tbody>
            {t.components.flatMap((c) =>
              c.instances.length === 0
                ? [
                    <tr key={c.name}>
                      <th scope="row">{c.name}</th>
                      <td colSpan={4}>
                        {c.status}
                        {c.error && `: ${c.error.message}`}
                      </td>
                    </tr>,
                  ]
                : c.instances.map((i) => (
                    <tr key={`${c.name}/${i.namespace}/${i.name}`}>
                      <th scope="row">{c.name}</th>
                      <td>
                        {i.namespace}/{i.name}
                      </td>
                      <td>{i.objects.length}</td>
                      <td>{i.ready ? 'yes' : 'no'}</td>
                      <td>
                        {i.counts.created} created, {i.counts.configured} configured, {i.counts.unchanged} unchanged
                      </td>
                    </tr>
                  )),
            )}
          </tbody>
        </table>
      )}
      <h3>Last runs</h3>
      <table class="runs">
        <thead>
          <tr>
            <th scope="col">Started</th>
            <th scope="col">Trigger</th>
            <th scope="col">Revision</th>
            <th scope="col">Duration</th>
            <th scope="col">Result</th>
            <th scope="col">Error</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.id}>
              <td>
                <time dateTime={r.startedAt} title={r.startedAt}>
                  {relativeTime(r.startedAt)}
                </time>
              </td>
              <td>{r.trigger}</td>
              <td title={r.revision ?? ''}>{shortRevision(r.revision)}</td>
              <td>{duration(r.durationMs)}</td>
              <td class={`result result-${r.result.toLowerCase()}`}>{r.result}</td>
              <td class="message">{r.error ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Events</h3>
      <ul class="events">
        {events.map((e) => (
          <li key={e.time + e.reason + e.message} class={e.type === 'Warning' ? 'warn' : ''}>
            <time dateTime={e.time} title={e.time}>
              {relativeTime(e.time)}
            </time>{' '}
            <strong>{e.reason}</strong> {e.message}
          </li>
        ))}
      </ul>
    </main>
  );
}
