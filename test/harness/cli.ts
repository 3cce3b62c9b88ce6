import { parseServices, startHarness } from './harness';

const usage = 'usage: npm run harness -- up [--services postgres,registry,kube]';

/** `npm run harness -- up`: starts the real services by hand and prints how to reach them. */
async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command !== 'up') throw new Error(usage);
  const flag = rest.indexOf('--services');
  const services = parseServices(flag >= 0 ? rest[flag + 1] : undefined);
  const harness = await startHarness(services);
  const env = JSON.stringify(harness.env);
  console.log(JSON.stringify(harness.env, null, 2));
  console.log(`\nlogs and data: ${harness.workDir}`);
  console.log(`to run tests against these services:\n  export FLOTILLA_HARNESS='${env}'`);
  console.log('\nCtrl-C stops everything.');
  const shutdown = () => void harness.stop().then(() => process.exit(0));
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
