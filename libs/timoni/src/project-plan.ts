// Dependency order of a project's components: cycles named, then the
// components grouped by depth so each group may run in parallel.
import { ProjectCycleError } from './errors';
import type { ExecutionPlan, ProjectComponent } from './types';

/** Finds the first cycle in declaration order; returns it with the start repeated at the end. */
export function findCycle(components: readonly Pick<ProjectComponent, 'name' | 'needs'>[]): string[] | undefined {
  const needs = new Map(components.map((c) => [c.name, c.needs]));
  const state = new Map<string, 'active' | 'done'>();
  const stack: string[] = [];
  const visit = (name: string): string[] | undefined => {
    if (state.get(name) === 'done') return undefined;
    if (state.get(name) === 'active') return [...stack.slice(stack.indexOf(name)), name];
    state.set(name, 'active');
    stack.push(name);
    for (const dep of needs.get(name) ?? []) {
      if (!needs.has(dep)) continue;
      const found = visit(dep);
      if (found) return found;
    }
    stack.pop();
    state.set(name, 'done');
    return undefined;
  };
  for (const c of components) {
    const found = visit(c.name);
    if (found) return found;
  }
  return undefined;
}

/** Components in dependency order; throws ProjectCycleError naming the cycle. */
export function planProject(components: readonly Pick<ProjectComponent, 'name' | 'needs'>[], file?: string): ExecutionPlan {
  const cycle = findCycle(components);
  if (cycle) throw new ProjectCycleError(cycle, file);
  const byName = new Map(components.map((c) => [c.name, c]));
  const depth = new Map<string, number>();
  const depthOf = (name: string): number => {
    const known = depth.get(name);
    if (known !== undefined) return known;
    const deps = (byName.get(name)?.needs ?? []).filter((d) => byName.has(d));
    const d = deps.length === 0 ? 0 : 1 + Math.max(...deps.map(depthOf));
    depth.set(name, d);
    return d;
  };
  const groups: string[][] = [];
  for (const c of components) (groups[depthOf(c.name)] ??= []).push(c.name);
  return { order: groups.flat(), groups };
}
