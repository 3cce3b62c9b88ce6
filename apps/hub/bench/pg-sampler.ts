// A sampling profile of PostgreSQL: which statements are running, every few
// milliseconds, from pg_stat_activity (no extension or restart needed).
import { Client } from 'pg';

export async function samplePostgres(url: string, everyMs = 10): Promise<{ stop(): Promise<Array<{ statement: string; samples: number }>> }> {
  const client = new Client({ connectionString: url });
  await client.connect();
  const counts = new Map<string, number>();
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await client.query<{ q: string }>(`SELECT coalesce(wait_event_type || ':' || wait_event, 'cpu') || '  ' || left(regexp_replace(query, '\\s+', ' ', 'g'), 100) AS q FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() AND backend_type = 'client backend'`);
      for (const r of rows) counts.set(r.q, (counts.get(r.q) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await client.end();
      return [...counts].map(([statement, samples]) => ({ statement, samples })).sort((a, b) => b.samples - a.samples);
    },
  };
}
