import { useState } from 'preact/hooks';
import { apiGet, path, query } from './api';
import { shortRevision } from './format';
import { StateBadge } from './state';
import type { FleetState, FleetSummary, MatrixPage } from './types';
import { useData } from './use-data';

const PAGE = 50;

interface Filter {
  name: string;
  group: string;
  labels: string;
}

function Summary({ summary, onGroup }: { summary: FleetSummary; onGroup: (g: string) => void }) {
  const total = summary.states.reduce((n, s) => n + summary.targets[s], 0);
  return (
    <section aria-labelledby="summary-title">
      <h2 id="summary-title">Fleet</h2>
      <p class="totals">
        <strong>{summary.clusters.toLocaleString('en')}</strong> clusters · <strong>{summary.projects.toLocaleString('en')}</strong> Projects · <strong>{total.toLocaleString('en')}</strong> Targets
      </p>
      <ul class="tiles">
        {summary.states.map((s) => (
          <li key={s} class={summary.targets[s] ? '' : 'empty'}>
            <StateBadge state={s} />
            <span class="count" data-state={s}>
              {summary.targets[s].toLocaleString('en')}
            </span>
          </li>
        ))}
      </ul>
      <table class="groups">
        <caption>Targets by cluster group and state</caption>
        <thead>
          <tr>
            <th scope="col">Group</th>
            <th scope="col" class="num">Clusters</th>
            {summary.states.map((s) => (
              <th scope="col" class="num" key={s}>
                {s}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {summary.groups.map((g) => (
            <tr key={g.group}>
              <th scope="row">
                <button type="button" class="link" onClick={() => onGroup(g.group)} aria-label={`Show group ${g.group} in the matrix`}>
                  {g.group}
                </button>
              </th>
              <td class="num">
                {g.unreachable > 0 && <span class="warn">({g.unreachable} unreachable) </span>}
                {g.clusters}
              </td>
              {summary.states.map((s: FleetState) => (
                <td key={s} class={g.targets[s] ? `num has-${s.toLowerCase()}` : 'num zero'}>
                  {g.targets[s]}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function reachability(r: boolean | null, mode: string): string {
  if (mode === 'agent') return 'agent';
  return r === null ? 'not checked' : r ? 'reachable' : 'unreachable';
}

function Matrix({ page, offset, setOffset }: { page: MatrixPage; offset: number; setOffset: (n: number) => void }) {
  const rows: preact.JSX.Element[] = [];
  let group: string | undefined;
  for (const row of page.items) {
    if (row.group !== group) {
      group = row.group;
      rows.push(
        <tr class="group-row" key={`g-${group}`}>
          <th scope="rowgroup" colSpan={page.projects.length + 2}>
            {group}
          </th>
        </tr>,
      );
    }
    rows.push(
      <tr key={row.cluster}>
        <th scope="row">
          <a href={`#/clusters/${encodeURIComponent(row.cluster)}`}>{row.cluster}</a>
        </th>
        <td class={row.reachable === false ? 'warn' : 'muted'}>{reachability(row.reachable, row.mode)}</td>
        {page.projects.map((p) => {
          const cell = row.cells[p];
          return (
            <td key={p} class="cell">
              {cell ? (
                <a
                  href={`#/projects/${encodeURIComponent(p)}/targets/${encodeURIComponent(row.cluster)}`}
                  aria-label={`${p} on ${row.cluster}: ${cell.state}`}
                  title={`${p} on ${row.cluster}: ${cell.state}, revision ${shortRevision(cell.revision)}`}
                >
                  <StateBadge state={cell.state} />
                </a>
              ) : (
                <span class="muted" title="not targeted">
                  <span aria-hidden="true">–</span>
                  <span class="sr-only">not targeted</span>
                </span>
              )}
            </td>
          );
        })}
      </tr>,
    );
  }
  const last = Math.min(offset + page.items.length, page.total);
  return (
    <>
      <div class="table-wrap">
        <table class="matrix" aria-describedby="matrix-range">
          <caption>Clusters × Projects</caption>
          <thead>
            <tr>
              <th scope="col">Cluster</th>
              <th scope="col">Connection</th>
              {page.projects.map((p) => (
                <th scope="col" key={p}>
                  <a href={`#/projects/${encodeURIComponent(p)}`}>{p}</a>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>{rows}</tbody>
        </table>
      </div>
      <nav class="pager" aria-label="Matrix pages">
        <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
          Previous
        </button>
        <span id="matrix-range">{page.total === 0 ? 'No clusters match' : `Clusters ${offset + 1}–${last} of ${page.total.toLocaleString('en')}`}</span>
        <button type="button" disabled={last >= page.total} onClick={() => setOffset(offset + PAGE)}>
          Next
        </button>
      </nav>
    </>
  );
}

export function Overview({ token, version }: { token: string; version: number }) {
  const [filter, setFilter] = useState<Filter>({ name: '', group: '', labels: '' });
  const [offset, setOffset] = useState(0);
  const summary = useData(() => apiGet<FleetSummary>(token, '/api/v1/fleet/summary'), [token, version]);
  const matrix = useData(
    () => apiGet<MatrixPage>(token, path`/api/v1/fleet/matrix` + query({ name: filter.name, group: filter.group, labelSelector: filter.labels, limit: PAGE, offset })),
    [token, version, filter.name, filter.group, filter.labels, offset],
  );
  const update = (patch: Partial<Filter>) => {
    setFilter({ ...filter, ...patch });
    setOffset(0);
  };
  return (
    <main id="main">
      {summary.error && <p role="alert" class="error">Summary: {summary.error.message}</p>}
      {summary.data ? <Summary summary={summary.data} onGroup={(group) => update({ group })} /> : <p class="muted">Loading the fleet…</p>}
      <section aria-labelledby="matrix-title">
        <h2 id="matrix-title">Clusters and Projects</h2>
        <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
          <label>
            Cluster name
            <input type="search" name="name" value={filter.name} onInput={(e) => update({ name: (e.target as HTMLInputElement).value.trim().toLowerCase() })} />
          </label>
          <label>
            Group
            <select name="group" value={filter.group} onChange={(e) => update({ group: (e.target as HTMLSelectElement).value })}>
              <option value="">all groups</option>
              {summary.data?.groups.map((g) => (
                <option key={g.group} value={g.group}>
                  {g.group}
                </option>
              ))}
            </select>
          </label>
          <label>
            Labels
            <input type="search" name="labels" placeholder="env=prod,region in (eu,us)" value={filter.labels} onChange={(e) => update({ labels: (e.target as HTMLInputElement).value.trim() })} />
          </label>
        </form>
        {matrix.error && <p role="alert" class="error">{matrix.error.message}</p>}
        {matrix.data ? <Matrix page={matrix.data} offset={offset} setOffset={setOffset} /> : !matrix.error && <p class="muted">Loading clusters…</p>}
      </section>
    </main>
  );
}
