import { parseServices, startHarness } from './harness';

const usage = [
  'usage: npm run harness -- up [--services postgres,registry,kube]',
  '       npm run harness -- clusters up --dir DIR [--names a,b,c] [--nodes 3]',
  '       npm run harness -- clusters down --dir DIR',
].join('\n');

const option = (args: string[], name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};

/**
 * `clusters up` starts harness clusters that outlive this command (kubeconfigs
 * in DIR/<name>/kubeconfig, the record in DIR/clusters.json); `clusters down`
 * stops them and removes DIR.
 */
async function clusters(args: string[]): Promise<void> {
  const { startKubeClusters, stopKubeClusters } = await import('./kube-cluster');
  const dir = option(args, 'dir');
  if (!dir) throw new Error(usage);
  if (args[0] === 'down') return stopKubeClusters(dir);
  if (args[0] !== 'up') throw new Error(usage);
  const names = (option(args, 'names') ?? 'cluster-1,cluster-2,cluster-3').split(',').filter(Boolean);
  const started = Date.now();
  const running = await startKubeClusters(dir, names, { detached: true, nodes: Number(option(args, 'nodes') ?? 3) });
  for (const c of running) console.log(`${c.describe()}\n  kubeconfig: ${c.kubeconfig}`);
  console.log(`${running.length} clusters up in ${((Date.now() - started) / 1000).toFixed(1)} s; stop them with: npm run harness -- clusters down --dir ${dir}`);
}

/** `npm run harness -- up`: starts the real services by hand and prints how to reach them. */
async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'clusters') return clusters(rest);
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
