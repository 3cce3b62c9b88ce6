import { createHubApp, listeningUrl } from './app';
import { parseHubConfig } from './config/hub-config';

async function main(): Promise<void> {
  const config = parseHubConfig(process.env);
  const app = await createHubApp(config);
  await app.listen(config.port, config.host);
  console.log(`flotilla hub listening on ${listeningUrl(app)}`);

  // Handled here rather than by Nest's shutdown hooks, which end by re-raising
  // the signal: as PID 1 in a container a re-raised SIGTERM is ignored, and the
  // process would only end once nothing else kept the event loop alive.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.log(`flotilla hub stopping (${signal})`);
    // the scheduler's grace plus time to close the database; Kubernetes kills at 30 s by default
    setTimeout(() => {
      console.error('flotilla hub: stop took too long; exiting');
      process.exit(1);
    }, config.scheduler.shutdownGraceMs + 5000).unref();
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(`flotilla hub: stop failed: ${err instanceof Error ? err.message : String(err)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
