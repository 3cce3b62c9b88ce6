export { CueEngine } from './engine';
export { defaultCueEngineOptions, type CueEngineOptions } from './options';
export type { PoolEvent, PoolStats } from './worker-pool';
export * from './errors';
export * from './types';
export { parseOrderedJson, type OrderedValue } from './ordered-json';
export { readFileTree } from './file-tree';
export { CGROUP_ROOT, readCgroupMemoryLimit } from './cgroup-memory';
export { cueMemoryBudget, type CueMemoryBudget, type CueMemoryBudgetInput } from './memory-budget';
