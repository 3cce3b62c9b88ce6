import { AGENT_PROTOCOL_LIMITS, type DiffResult, type DryRunDiff, fitText } from '@flotilla/agent-protocol';
import { ArchiveError, Limiter, readSourceArchive, type ClusterTarget, type EngineRuntime, type ProjectDiff } from '@flotilla/engine';
import type { ResourceManager } from '@flotilla/kube';
import { projectIntent } from '../project/project-spec';
import type { ProjectResource } from '../project/project-resource';

export interface DiffAnswererDeps {
  runtime: EngineRuntime;
  manager: ResourceManager;
  cluster: ClusterTarget;
  owner: string;
  /** the hub-managed Project resource of a Target, if the agent wrote it */
  projectOf(targetId: string): Promise<ProjectResource | undefined>;
}

/** Each diff holds CUE builds and a dry run: a few at once, the rest wait their turn. */
const MAX_DIFFS_AT_ONCE = 2;
/** The hub stops waiting at its own deadline; this bounds the agent's work should it never hear. */
const DIFF_DEADLINE_MS = 120_000;

/**
 * Answers the hub's dry-run diffs for the fleet diff: the same engine steps a
 * reconcile of the Target's Project takes, with the agent's own credentials,
 * ending in a server-side dry run. Never throws: a failure is the answer's error.
 */
export class DiffAnswerer {
  private readonly limiter = new Limiter(MAX_DIFFS_AT_ONCE);

  constructor(private readonly deps: DiffAnswererDeps) {}

  async answer(request: DryRunDiff): Promise<DiffResult> {
    const base = { requestId: request.requestId, unsupported: false, diffJson: '', error: '' };
    try {
      return { ...base, diffJson: boundedJson(await this.limiter.run(() => this.diff(request))) };
    } catch (err) {
      // within the hub's bound on texts: a longer one would be refused with the stream
      return { ...base, error: fitText(err instanceof Error ? err.message : String(err)) };
    }
  }

  private async diff(request: DryRunDiff): Promise<ProjectDiff> {
    const project = await this.deps.projectOf(request.targetId);
    if (!project) throw new Error(`the agent holds no Project for Target ${request.targetId} (not written yet, or removed)`);
    const parsed = projectIntent(project);
    if (!parsed.ok) throw new Error(`the Project resource is invalid: ${parsed.problems.join('; ')}`);
    const spec = parsed.intent.spec;
    const files = request.artifact.length > 0 ? await readUpload(Buffer.from(request.artifact)) : undefined;
    return this.deps.runtime.diff(
      {
        project: request.tag ? { ...spec, source: { ...spec.source, tag: request.tag } } : spec,
        cluster: this.deps.cluster,
        ...(request.digest ? { digest: request.digest } : {}),
        ...(files ? { files } : {}),
        owner: this.deps.owner,
        knownNamespaces: project.status?.namespaces ?? [],
        signal: AbortSignal.timeout(DIFF_DEADLINE_MS),
      },
      { manager: this.deps.manager },
    );
  }
}

async function readUpload(archive: Buffer) {
  try {
    return await readSourceArchive(archive, AGENT_PROTOCOL_LIMITS.diffArtifact);
  } catch (err) {
    if (err instanceof ArchiveError) throw new Error(`the uploaded artifact cannot be read: ${err.message}`, { cause: err });
    throw err;
  }
}

/** The diff as JSON within one stream message: a large one keeps what changes and leaves out the unified texts. */
export function boundedJson(diff: ProjectDiff, limit: number = AGENT_PROTOCOL_LIMITS.maxDiffJsonBytes): string {
  const full = JSON.stringify(diff);
  if (Buffer.byteLength(full) <= limit) return full;
  const note = { component: '*', message: `the unified diffs were left out: the answer took ${Buffer.byteLength(full)} bytes, over the agent stream's limit of ${limit}` };
  const brief = JSON.stringify({ ...diff, objects: diff.objects.map((o) => ({ ...o, diff: '' })), errors: [...diff.errors, note] });
  if (Buffer.byteLength(brief) <= limit) return brief;
  throw new Error(`the diff of ${diff.objects.length} objects does not fit the agent stream's limit of ${limit} bytes even without its unified texts`);
}
