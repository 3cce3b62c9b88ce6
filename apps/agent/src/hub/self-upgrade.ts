// An upgrade from the hub: the agent sets the image the hub sent on its own
// Deployment's container; Kubernetes rolls the Deployment. With the
// install's strategy (maxUnavailable 0) a new pod that never becomes ready
// leaves the old ones running, this one included.
import { AGENT_PROTOCOL_LIMITS, type UpgradeResult } from '@flotilla/agent-protocol';
import { ForbiddenError, NotFoundError, type ObjectClient } from '@flotilla/kube';
import { InvalidReferenceError, parseReference } from '@flotilla/oci';
import type { Logger } from '../logging/logger';

/** The container the install names (deploy/agent/deployment.yaml): the patch checks it is the first. */
export const AGENT_CONTAINER = 'agent';

export class SelfUpgrade {
  constructor(
    private readonly client: ObjectClient,
    /** null outside a pod without --self-deployment: upgrades are refused, saying why */
    private readonly deployment: { namespace: string; name: string } | null,
    private readonly log: Logger,
  ) {}

  /** Patches the Deployment's image; the answer for the hub says whether it did, or why not. Never throws. */
  async upgrade(image: string): Promise<UpgradeResult> {
    const refused = (error: string): UpgradeResult => {
      this.log.warn('upgrade from the hub not applied', { image: image.slice(0, 200), error });
      return { image: image.slice(0, AGENT_PROTOCOL_LIMITS.maxStringBytes.image), error };
    };
    if (!this.deployment) return refused('this agent does not know its Deployment (--self-deployment, or run it in a pod): upgrade it by hand');
    const problem = imageProblem(image);
    if (problem) return refused(problem);
    const { namespace, name } = this.deployment;
    const subject = `Deployment/${namespace}/${name}`;
    try {
      // test first: a Deployment whose first container is not the agent's is left alone
      await this.client.patch(
        { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name },
        [
          { op: 'test', path: '/spec/template/spec/containers/0/name', value: AGENT_CONTAINER },
          { op: 'replace', path: '/spec/template/spec/containers/0/image', value: image },
        ],
        'json',
        { fieldManager: 'flotilla-agent-upgrade' },
      );
    } catch (err) {
      const why = err instanceof ForbiddenError
        ? `${subject}: the agent may not patch it (the install's flotilla-agent-self-upgrade Role allows its own Deployment by name)`
        : err instanceof NotFoundError
          ? `${subject} does not exist (--self-deployment names another?)`
          : `${subject}: ${err instanceof Error ? err.message : String(err)}`;
      return refused(why);
    }
    this.log.info('upgrade from the hub: image set on the agent\'s Deployment; Kubernetes rolls it', { deployment: subject, image });
    return { image, error: '' };
  }
}

/** Why `image` is not one to run: the hub sends its configured reference, checked again here. */
function imageProblem(image: string): string | undefined {
  const limit = AGENT_PROTOCOL_LIMITS.maxStringBytes.image;
  if (Buffer.byteLength(image) > limit) return `the image reference is longer than ${limit} bytes`;
  if (image.startsWith('oci://')) return `${image} is not a container image reference`;
  try {
    const ref = parseReference(image);
    if (!ref.tag && !ref.digest) return `${image} names no tag or digest`;
  } catch (err) {
    if (err instanceof InvalidReferenceError) return err.message;
    throw err;
  }
  return undefined;
}
