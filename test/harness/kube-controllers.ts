import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { request } from 'node:https';
import { join } from 'node:path';
import { writeClientCertificate, type KubePki } from './kube-pki';
import { writeKubeconfig } from './kubeconfig';
import { freePort } from './ports';
import { spawnLogged } from './process';

/** Binaries that make a bare API server behave like a cluster. */
export interface ControllerBinaries {
  kubeControllerManager: string;
  kubeScheduler: string;
  kwok: string;
}

/** One started process of a cluster, with the check that says it is serving. */
export interface ClusterProcess {
  name: string;
  child: ChildProcess;
  logFile: string;
  /** resolves true once the process serves; absent when only the API shows it (kwok: nodes become Ready) */
  ready?: () => Promise<boolean>;
  /** starts the process again with the same arguments, logging to the same file */
  respawn?: () => ChildProcess;
}

/**
 * GET https://127.0.0.1:port/healthz of a component's own serving port. Its
 * certificate is self-signed by the component, and /healthz needs no
 * credentials, so the certificate is not checked: nothing secret is sent.
 */
function healthz(port: number): () => Promise<boolean> {
  return () =>
    new Promise((resolve) => {
      const req = request(
        { host: '127.0.0.1', port, path: '/healthz', rejectUnauthorized: false, timeout: 2_000 },
        (res) => {
          res.resume();
          resolve(res.statusCode === 200);
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => resolve(false));
      req.end();
    });
}

/**
 * Starts kube-controller-manager, kube-scheduler and kwok against the API
 * server at `server`, each with its own client certificate from the cluster
 * CA (the identities the RBAC bootstrap roles expect; kwok, which patches any
 * pod and node status, as a member of system:masters). Leader election is off:
 * each cluster has exactly one of each. Every process is pushed to `procs` as
 * soon as it is spawned, so a failed start can still stop it.
 */
export async function startControllers(
  bins: ControllerBinaries,
  workDir: string,
  dir: string,
  server: string,
  pki: KubePki,
  kwokStages: string,
  procs: ClusterProcess[],
  spawnOptions: SpawnOptions = {},
): Promise<void> {
  const kubeconfig = async (file: string, user: string, groups: string[]) => {
    const cert = await writeClientCertificate(dir, user, groups);
    const path = join(dir, file);
    writeKubeconfig(path, 'flotilla', server, pki.caData, { clientCertificateData: cert.certData, clientKeyData: cert.keyData });
    return path;
  };
  // one after another: openssl keeps the CA's serial number in one file
  const kcmConfig = await kubeconfig('kube-controller-manager.kubeconfig', 'system:kube-controller-manager', []);
  const schedulerConfig = await kubeconfig('kube-scheduler.kubeconfig', 'system:kube-scheduler', []);
  const kwokConfig = await kubeconfig('kwok.kubeconfig', 'kwok', ['system:masters']);
  const [kcmPort, schedulerPort] = [await freePort(), await freePort()];

  const start = (name: string, bin: string, args: string[], ready?: () => Promise<boolean>) => {
    const logFile = join(workDir, `${name}.log`);
    const respawn = () => spawnLogged(bin, args, logFile, spawnOptions);
    procs.push({ name, child: respawn(), logFile, ready, respawn });
  };
  start(
    'kube-controller-manager',
    bins.kubeControllerManager,
    [
      `--kubeconfig=${kcmConfig}`,
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      `--secure-port=${kcmPort}`,
      `--cert-dir=${join(dir, 'kube-controller-manager')}`,
      // every controller that runs without a cloud provider; node IPAM stays off (no --allocate-node-cidrs)
      '--controllers=*',
      // each controller as its own service account, with the bootstrap role made for it
      '--use-service-account-credentials=true',
      `--service-account-private-key-file=${pki.serviceAccountKey}`,
      `--root-ca-file=${pki.caCert}`,
      `--cluster-signing-cert-file=${pki.caCert}`,
      `--cluster-signing-key-file=${pki.caKey}`,
      '--profiling=false',
      // kwok beats every 10-15 s; a node silent for 2 min is a stuck kwok, which the
      // watchdog restarts after 45 s: no NotReady in between, whose pods kwok would leave not Ready
      '--node-monitor-grace-period=120s',
    ],
    healthz(kcmPort),
  );
  start(
    'kube-scheduler',
    bins.kubeScheduler,
    [
      `--kubeconfig=${schedulerConfig}`,
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      `--secure-port=${schedulerPort}`,
      `--cert-dir=${join(dir, 'kube-scheduler')}`,
      '--profiling=false',
    ],
    healthz(schedulerPort),
  );
  start('kwok', bins.kwok, [
    `--kubeconfig=${kwokConfig}`,
    `--config=${kwokStages}`,
    '--manage-all-nodes=false',
    '--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake',
    // pod IPs kwok hands out; no kwok server (no --server-address): nothing to expose
    '--cidr=10.244.0.1/16',
    '--node-ip=10.0.0.1',
  ]);
}
