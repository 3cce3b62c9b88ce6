// Public surface of @flotilla/timoni: Timoni's Project, Bundle, Runtime and
// Module semantics over libs/cue and libs/oci.
export * from './types';
export * from './errors';
export { parseDuration } from './duration';
export { loadProject, defaultProjectLoadOptions, type ProjectLoadOptions, type LoadedProject } from './project-load';
export { planProject, findCycle } from './project-plan';
export { loadBundle, type BundleLoadRequest } from './bundle-load';
export { injectRuntimeValues, parseRuntimeAttribute } from './runtime-attributes';
export { loadRuntime } from './runtime-load';
export {
  resolveRuntimeValues,
  readRuntimeValues,
  parseRuntimeQuery,
  annotationValues,
  clusterFromAnnotations,
  selectCluster,
  decodeBase64,
  CLUSTER_NAME_VAR,
  CLUSTER_GROUP_VAR,
  CLUSTER_ANNOTATION,
  GROUP_ANNOTATION,
  type ResolveRuntimeRequest,
} from './runtime-values';
export { buildModule, buildKey, kubeVersionOf, hashTree, DEFAULT_KUBE_VERSION, DEVEL_VERSION, type BuildRequest } from './module-build';
export { ModuleBuilder, defaultModuleBuilderOptions, type ModuleBuilderOptions } from './module-builder';
export { readModuleImages, withImagesAnnotation, IMAGES_FILE } from './module-images';
export { pushTimoniModule } from './module-push';
export { ModuleFetcher, defaultModuleFetcherOptions, moduleName, type ModuleFetcherOptions } from './module-fetch';
export { LruPromiseCache, type BuildCacheStats } from './build-cache';
export { CueHealthCheckEvaluator, matchHealthCheck } from './health-check';
export { stepObjects, validateObject, collectImages, INSTANCE_NAME_LABEL, INSTANCE_NAMESPACE_LABEL } from './object-validate';
export { ComponentBuilder, defaultComponentBuilderOptions, type ComponentBuilderOptions, type ClusterTarget, type ComponentBuild } from './component-build';
export { vetProject, vetProjectArtifact, type VetReport } from './project-vet';
