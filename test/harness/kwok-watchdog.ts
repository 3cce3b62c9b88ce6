// kwok has been seen, in CI on a busy machine, to stop playing its stages for
// minutes: no node heartbeat and no pod made Ready, while the API server
// answered. A kubelet that hangs is restarted by its
// supervisor; this plays that part for kwok, so one stall does not fail
// whichever suite is waiting for a rollout at the time.
import type { ClusterProcess } from './kube-controllers';
import { kubeRequest } from './kube-http';
import { logTail, stopProcess } from './process';
import type { KubeEndpoint } from './types';

export interface KwokWatchdogOptions {
  /** no node beat for this long: kwok is stuck (it beats every 10 to 15 s, test/kube-apiserver/kwok/stages.yaml) */
  staleMs: number;
  checkEveryMs: number;
}

export const DEFAULT_KWOK_WATCHDOG: KwokWatchdogOptions = { staleMs: 45_000, checkEveryMs: 5_000 };

/** A check this much later than planned: this process's event loop was blocked or the machine paused, so kwok's silence meanwhile is not judged. */
const PAUSE_MS = 20_000;

export class KwokWatchdog {
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> = Promise.resolve();
  private stopped = false;
  /** since when kwok has had the chance to beat: its start, or the end of a pause */
  private watchedSince = Date.now();
  /** one line per restart, as logged */
  readonly restarts: string[] = [];

  constructor(
    private readonly endpoint: KubeEndpoint,
    private readonly nodes: string[],
    /** kwok's process, as the cluster stops it: its `child` is replaced on each restart */
    private readonly kwok: ClusterProcess,
    private readonly log: (line: string) => void,
    private readonly options: KwokWatchdogOptions = DEFAULT_KWOK_WATCHDOG,
  ) {
    if (!kwok.respawn) throw new Error('the kwok watchdog needs a kwok it can start again');
  }

  start(): this {
    this.schedule();
    return this;
  }

  /** Stops watching; a restart under way finishes first. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.checking;
  }

  private schedule(): void {
    const planned = Date.now() + this.options.checkEveryMs;
    this.timer = setTimeout(() => {
      const lateMs = Date.now() - planned;
      if (lateMs > PAUSE_MS) {
        // said, since it explains any wait that timed out meanwhile; not kwok's fault
        this.log(`kwok watchdog: this process (pid ${process.pid}) ran ${Math.round(lateMs / 1000)} s late: its event loop was blocked, or the machine paused`);
        this.watchedSince = Date.now();
      }
      this.checking = this.check()
        .catch((err: Error) => this.log(`kwok watchdog: check failed: ${err.message}`))
        .then(() => {
          if (!this.stopped) this.schedule();
        });
    }, this.options.checkEveryMs).unref();
  }

  private async check(): Promise<void> {
    const nodes = await this.nodeBeats();
    // the API server not answering is not kwok's fault
    if (nodes.length === 0 || this.stopped) return;
    const newest = Math.max(...nodes.map((n) => n.beat));
    const now = Date.now();
    if (now - Math.max(newest, this.watchedSince) < this.options.staleMs) return;
    const states = nodes.map((n) => `${n.name} Ready=${n.ready} ${Math.round((now - n.beat) / 1000)} s ago`).join(', ');
    const line = `kwok watchdog: no fake node has beaten for ${Math.round((now - newest) / 1000)} s (${states}); restarting kwok (pid ${this.kwok.child.pid}). Its last log line: ${logTail(this.kwok.logFile, 1).slice(0, 400)}`;
    this.restarts.push(line);
    this.log(line);
    await stopProcess(this.kwok.child, 2_000);
    this.kwok.child = this.kwok.respawn!();
    this.watchedSince = Date.now();
  }

  /** Each fake node's last heartbeat (ms since the epoch) and Ready status; none when the API server did not answer. */
  private async nodeBeats(): Promise<Array<{ name: string; beat: number; ready: string }>> {
    const res = await kubeRequest(this.endpoint, '/api/v1/nodes', { token: this.endpoint.admin.token, timeoutMs: 5_000 }).catch(() => undefined);
    if (res?.status !== 200) return [];
    type Node = { metadata: { name: string }; status?: { conditions?: { type: string; status: string; lastHeartbeatTime?: string }[] } };
    return (res.json as { items: Node[] }).items
      .filter((n) => this.nodes.includes(n.metadata.name))
      .map((n) => {
        const ready = n.status?.conditions?.find((c) => c.type === 'Ready');
        return { name: n.metadata.name, beat: Date.parse(ready?.lastHeartbeatTime ?? ''), ready: ready?.status ?? 'absent' };
      })
      .filter((n) => !Number.isNaN(n.beat));
  }
}
