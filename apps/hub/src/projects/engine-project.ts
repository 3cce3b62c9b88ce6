import type { ProjectSpec } from '@flotilla/engine';
import type { ProjectEntity } from '../database/entities';

/** The Project as the engine (and an agent's assignment) sees it. */
export function engineProject(p: ProjectEntity): ProjectSpec & { overwriteOwnership: boolean } {
  return {
    name: p.name,
    namespace: p.namespace,
    source: { repository: p.sourceRepository, tag: p.sourceTag, path: p.sourcePath },
    serviceAccountName: p.serviceAccountName,
    annotations: p.annotations,
    overwriteOwnership: p.overwriteOwnership,
  };
}
