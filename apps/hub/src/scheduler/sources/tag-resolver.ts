import { projectCredentialSource, type ProjectRegistryCredentials } from '@flotilla/engine';
import { parseReference, RegistryClient, type CredentialSource } from '@flotilla/oci';

/** Injection token of the TagResolver the source poller uses. */
export const TAG_RESOLVER = Symbol('TAG_RESOLVER');

/** A Project's stored credentials, or a ready source (the image pull secrets read in a cluster). */
export type TagCredentials = ProjectRegistryCredentials | { kind: 'source'; source: CredentialSource };

/** Tag → digest, with a Project's registry credentials. */
export interface TagResolver {
  /** `repository` is `oci://host/repo`; returns `sha256:…` */
  resolve(repository: string, tag: string, credentials?: TagCredentials, signal?: AbortSignal): Promise<string>;
}

/** Resolves through libs/oci (HEAD of the manifest, GET when HEAD gives no digest). */
export class OciTagResolver implements TagResolver {
  /** `fetch`: the hub's egress-checked fetch (default: Node's) */
  constructor(private readonly options: { responseTimeoutMs: number; fetch?: typeof fetch } = { responseTimeoutMs: 30_000 }) {}

  async resolve(repository: string, tag: string, credentials?: TagCredentials, signal?: AbortSignal): Promise<string> {
    const ref = parseReference(`${repository}:${tag}`);
    const client = new RegistryClient({ credentials: credentialSource(credentials, ref.registry), responseTimeoutMs: this.options.responseTimeoutMs, ...(this.options.fetch ? { fetch: this.options.fetch } : {}) });
    return (await client.resolve(ref, { signal })).digest;
  }
}

function credentialSource(c: TagCredentials | undefined, registry: string): CredentialSource {
  if (!c) return { kind: 'anonymous' };
  return c.kind === 'source' ? c.source : projectCredentialSource(c, registry);
}

