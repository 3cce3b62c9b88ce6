// A CPU profile of this process over part of a benchmark, through the inspector.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

export async function startProfile(): Promise<{ stop(file: string): Promise<void> }> {
  const session = new Session();
  session.connect();
  const post = <T>(method: string, params?: object) => new Promise<T>((resolve, reject) => session.post(method, params, (err, r) => (err ? reject(err) : resolve(r as T))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 1000 });
  await post('Profiler.start');
  return {
    async stop(file) {
      const { profile } = await post<{ profile: unknown }>('Profiler.stop');
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}
