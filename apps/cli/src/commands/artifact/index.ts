// `flotilla artifact …`: Project artifacts in Timoni's format, so `timoni
// artifact pull` reads what `flotilla artifact push` wrote and vice versa.
import type { Command } from 'commander';
import { group, type Cli } from '../../cli';
import { registerArtifactPush } from './push';
import { registerArtifactTag } from './tag';
import { registerArtifactList } from './list';

export function registerArtifact(program: Command, cli: Cli): void {
  const artifact = group(program, 'artifact', 'push, tag and list Project artifacts in an OCI registry (Timoni format)');
  registerArtifactPush(artifact, cli);
  registerArtifactTag(artifact, cli);
  registerArtifactList(artifact, cli);
}
