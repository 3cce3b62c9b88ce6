import { ProjectActions } from './actions';
import { apiGet, path } from './api';
import { relativeTime, shortRevision } from './format';
import { RolloutPipeline } from './rollout';
import { isHealthy, StateBadge, stateOfTarget } from './state';
import type { HubEvent, Page, Project, Role, RolloutView, Target } from './types';
import { useData } from './use-data';

interface GroupProgress {
  group: string;
  healthy: number;
  total: number;
}

/** Without waves: every group (they all move at once), with Targets Ready and Healthy on `revision`. */
function groupProgress(targets: Target[], revision: string | undefined): GroupProgress[] {
  const groups = [...new Set(targets.map((t) => t.clusterGroup))].sort();
  return groups.map((group) => {
    const inGroup = targets.filter((t) => t.clusterGroup === group);
    const healthy = inGroup.filter((t) => isHealthy(t.phase, t.conditions) && (revision === undefined || t.lastAppliedRevision === revision)).length;
    return { group, healthy, total: inGroup.length };
  });
}

export function ProjectPage({ token, role, version, name }: { token: string; role: Role; version: number; name: string }) {
  const data = useData(async () => {
    const [project, targets, events, rollout] = await Promise.all([
      apiGet<Project>(token, path`/api/v1/projects/${name}`),
      apiGet<Page<Target>>(token, path`/api/v1/projects/${name}/targets?limit=500`),
      apiGet<Page<HubEvent>>(token, path`/api/v1/projects/${name}/events?limit=200`),
      apiGet<RolloutView>(token, path`/api/v1/projects/${name}/rollout`),
    ]);
    return { project, targets: targets.items, total: targets.total ?? targets.items.length, events: events.items, rollout };
  }, [token, name, version]);
  if (data.error && !data.data) return <main id="main"><p role="alert" class="error">{data.error.message}</p></main>;
  if (!data.data) return <main id="main"><p class="muted">Loading {name}…</p></main>;
  const { project, targets, total, events, rollout } = data.data;
  const revisions = events.filter((e) => e.reason === 'NewRevision');
  const digest = revisions[0] && /sha256:[0-9a-f]{64}/.exec(revisions[0].message)?.[0];
  const current = digest ? `${project.source.tag}@${digest}` : undefined;
  // with waves, each step of the pipeline says why it waits, as of now
  const halt = events.find((e) => e.reason === 'RolloutWaiting' && (!revisions[0] || e.time >= revisions[0].time));
  return (
    <main id="main">
      <nav class="crumbs" aria-label="Breadcrumb">
        <a href="#/">Fleet</a> › Project
      </nav>
      <h2>
        Project {project.name} {project.suspend && <span class="state state-suspended">❚❚ Suspended</span>}
      </h2>
      <dl class="facts">
        <dt>Source</dt>
        <dd>
          <code>{project.source.repository}</code> tag <code>{project.source.tag}</code>, file <code>{project.source.path}</code>
        </dd>
        <dt>Tag points to</dt>
        <dd>{digest ? <><code title={digest}>{digest.slice(0, 19)}…</code> since {relativeTime(revisions[0].time)}</> : 'not resolved yet'}</dd>
        <dt>Namespace</dt>
        <dd>{project.namespace}</dd>
        <dt>Interval</dt>
        <dd>{project.interval}</dd>
      </dl>
      <ProjectActions token={token} role={role} project={project.name} suspended={project.suspend} />
      {rollout.waves.length > 0 ? (
        <RolloutPipeline token={token} role={role} rollout={rollout} />
      ) : (
        <>
          <h3>Rollout</h3>
          <p class="muted">No waves: every cluster moves to a new revision at once.</p>
          <ol class="waves">
            {groupProgress(targets, current).map((w) => (
              <li key={w.group}>
                <strong>{w.group}</strong>
                <progress max={w.total || 1} value={w.healthy} aria-label={`${w.group}: ${w.healthy} of ${w.total} Ready and Healthy on the newest revision`} />
                <span>
                  {w.healthy} of {w.total} Ready and Healthy
                </span>
              </li>
            ))}
          </ol>
        </>
      )}
      {halt && rollout.waves.length === 0 && <p class="warn">Rollout halted: {halt.message}</p>}
      <h3>Targets ({total})</h3>
      <table>
        <thead>
          <tr>
            <th scope="col">Cluster</th>
            <th scope="col">Group</th>
            <th scope="col">State</th>
            <th scope="col">Revision</th>
            <th scope="col">Next run</th>
          </tr>
        </thead>
        <tbody>
          {targets.map((t) => (
            <tr key={t.cluster}>
              <th scope="row">
                <a href={path`#/projects/${project.name}/targets/${t.cluster}`}>{t.cluster}</a>
              </th>
              <td>{t.clusterGroup}</td>
              <td>
                <StateBadge state={stateOfTarget(t.phase, t.conditions)} />
              </td>
              <td title={t.lastAppliedRevision ?? ''}>{shortRevision(t.lastAppliedRevision)}</td>
              <td>{relativeTime(t.nextRunAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Recent revisions</h3>
      {revisions.length === 0 ? (
        <p class="muted">None yet.</p>
      ) : (
        <ul class="events">
          {revisions.slice(0, 10).map((e) => (
            <li key={e.time + e.message}>
              <time dateTime={e.time} title={e.time}>
                {relativeTime(e.time)}
              </time>{' '}
              {e.message}
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}
