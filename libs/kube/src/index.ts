// Public surface of libs/kube: the Kubernetes apply engine (Timoni-compatible).
export * from './types';
export * from './errors';
export * from './constants';
export * from './object-id';
export * from './object-sort';
export * from './object-drift';
export * from './object-diff';
export * from './action-annotations';
export * from './changeset';
export * from './instance-state';
export * from './secret-mask';
export * from './health/health-registry';
export * from './health/health-status';
