import type { ObjectClient } from '@flotilla/kube';
import { RegistryClient } from '@flotilla/oci';
import { defaultFleetTiming, HubFleet, type FleetTiming } from './hub-fleet';
import { adminClient, deleteNamespaces, prepareTenant, registerSpoke, uniqueName } from './spoke';

/** What every suite works with. */
export interface SpokeSuite {
  readonly registry: RegistryClient;
  readonly kube: ObjectClient;
  /** the Project's namespace, also where its instances go */
  readonly ns: string;
  /** runs before the hubs stop (e.g. a DeploymentReadiness loop) */
  beforeStop(fn: () => void): void;
}

export interface SpokeSuiteOptions {
  hubs: string[];
  timing: FleetTiming;
  /** more namespaces the service account may deploy into */
  instanceNamespaces: (ns: string) => string[];
  /** name and group under which the harness API server is registered */
  spokes: Array<[name: string, group: string]>;
  /** receives the hubs once they run, before the suite's own beforeAll hooks */
  started: (fleet: HubFleet) => void;
  /** more environment of every hub (a function: worked out just before the hubs start, e.g. a free port) */
  env: Record<string, string> | (() => Promise<Record<string, string>>);
}

/**
 * Registers the usual beforeAll/afterAll of an end-to-end suite: a tenant
 * namespace with the `deployer` service account, compiled hubs on a fresh
 * database, the harness API server registered as push cluster(s); afterwards
 * everything stopped and the namespaces deleted.
 */
export function spokeSuite(prefix: string, options: Partial<SpokeSuiteOptions> = {}): SpokeSuite {
  const { hubs = ['hub-1'], timing = defaultFleetTiming(), instanceNamespaces = (ns: string) => [ns], spokes = [['spoke-1', 'staging']], started, env = {} } = options;
  const stoppers: Array<() => void> = [];
  let fleet: HubFleet | undefined;
  const suite: SpokeSuite = {
    registry: new RegistryClient(),
    kube: adminClient(),
    ns: uniqueName(prefix),
    beforeStop: (fn) => void stoppers.push(fn),
  };
  beforeAll(async () => {
    await prepareTenant(suite.kube, { namespace: suite.ns, serviceAccount: 'deployer', instanceNamespaces: instanceNamespaces(suite.ns) });
    fleet = await HubFleet.start(hubs, timing, typeof env === 'function' ? await env() : env);
    started?.(fleet);
    for (const [name, group] of spokes) await registerSpoke(fleet, name, group);
  });
  afterAll(async () => {
    for (const stop of stoppers) stop();
    await fleet?.stop();
    await deleteNamespaces(suite.kube, [...new Set([suite.ns, ...instanceNamespaces(suite.ns)])]);
    await suite.kube.connection.close();
  });
  return suite;
}
