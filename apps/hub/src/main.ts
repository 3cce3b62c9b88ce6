import { createHubApp, listeningUrl } from './app';
import { parseHubConfig } from './config/hub-config';

async function main(): Promise<void> {
  const config = parseHubConfig(process.env);
  const app = await createHubApp(config);
  await app.listen(config.port, config.host);
  console.log(`flotilla hub listening on ${listeningUrl(app)}`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
