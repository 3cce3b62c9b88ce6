// A hub for the benchmarks: in process, on the given PostgreSQL, with the
// admin token known, and a typed `call` that fails on any non-2xx answer.
import type { INestApplication } from '@nestjs/common';
import { createHubApp, listeningUrl } from '../src/app';
import { defaultHubConfig, defaultSchedulerConfig, type SchedulerConfig, defaultAgentServerConfig } from '../src/config/hub-config';
import { type CdeventsConfig, defaultCdeventsConfig } from '../src/config/cdevents-config';
import { defaultEgressConfig } from '../src/config/egress-config';
import type { TargetRunner } from '../src/scheduler/target-runner';

const ADMIN_TOKEN = 'bench-admin-token-0123456789';

export interface BenchHub {
  app: INestApplication;
  url: string;
  call<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  /** the /metrics text, read as admin */
  metrics(): Promise<string>;
}

export async function startBenchHub(options: { dataDir: string; databaseUrl: string; /** Stands in for the clusters; the production runner when absent. */
  runner?: TargetRunner; scheduler: Partial<SchedulerConfig>; cdevents?: Partial<CdeventsConfig> }): Promise<BenchHub> {
  const app = await createHubApp(
    {
      ...defaultHubConfig(),
      host: '127.0.0.1',
      port: 0,
      dataDir: options.dataDir,
      databaseUrl: options.databaseUrl,
      logLevel: 'error',
      adminToken: ADMIN_TOKEN,
      scheduler: { ...defaultSchedulerConfig(), hubId: 'bench', ...options.scheduler },
      cdevents: { ...defaultCdeventsConfig(), ...options.cdevents },
      agents: { ...defaultAgentServerConfig('127.0.0.1'), port: 0 },
      // the harness's services listen on loopback
      egress: { ...defaultEgressConfig(), allowLoopback: true },
    },
    { scheduler: { targetRunner: options.runner }, announce: () => undefined },
  );
  await app.listen(0, '127.0.0.1');
  const url = listeningUrl(app);
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<T>;
  };
  const metrics = async () => (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
  return { app, url, call, metrics };
}
