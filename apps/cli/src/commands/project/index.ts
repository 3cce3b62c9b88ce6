// `flotilla project …`: Projects on the hub, and local vet/build without one.
import type { Command } from 'commander';
import { group, type Cli } from '../../cli';
import { registerProjectCreate } from './create';
import { registerProjectApply } from './apply';
import { registerProjectList } from './list';
import { registerProjectStatus } from './status';
import { registerProjectEvents } from './events';
import { registerProjectHistory } from './history';
import { registerProjectReconcile } from './reconcile';
import { registerProjectSuspend } from './suspend';
import { registerProjectResume } from './resume';
import { registerProjectDelete } from './delete';
import { registerProjectVet } from './vet';
import { registerProjectBuild } from './build';
import { registerProjectDiff } from './diff';
import { registerProjectBootstrap } from './bootstrap';
import { registerProjectRollout } from './rollout';

export function registerProject(program: Command, cli: Cli): void {
  const project = group(program, 'project', 'Projects on the hub, and local checks of a Project directory');
  registerProjectCreate(project, cli);
  registerProjectApply(project, cli);
  registerProjectList(project, cli);
  registerProjectStatus(project, cli);
  registerProjectEvents(project, cli);
  registerProjectHistory(project, cli);
  registerProjectReconcile(project, cli);
  registerProjectSuspend(project, cli);
  registerProjectResume(project, cli);
  registerProjectDelete(project, cli);
  registerProjectDiff(project, cli);
  registerProjectBootstrap(project, cli);
  registerProjectRollout(project, cli);
  registerProjectVet(project, cli);
  registerProjectBuild(project, cli);
}
