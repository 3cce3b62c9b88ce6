// Names that must never change once released: Timoni reads and writes the same ones.

/** Server-side apply field manager (Timoni's). */
export const FIELD_MANAGER = 'timoni';

export const INSTANCE_NAME_LABEL = 'instance.timoni.sh/name';
export const INSTANCE_NAMESPACE_LABEL = 'instance.timoni.sh/namespace';
export const BUNDLE_NAME_LABEL = 'bundle.timoni.sh/name';

/** Written on the state Secret while an instance is being deleted (RFC3339 time). */
export const DELETING_ANNOTATION = 'status.timoni.sh/deleting';

/** The state Secret: `timoni.<instance>` of this type, with these labels. */
export const STATE_SECRET_TYPE = 'timoni.sh/instance';
export const STATE_SECRET_PREFIX = 'timoni.';
export const APP_NAME_LABEL = 'app.kubernetes.io/name';
export const APP_COMPONENT_LABEL = 'app.kubernetes.io/component';
export const APP_CREATED_BY_LABEL = 'app.kubernetes.io/created-by';
export const STATE_COMPONENT = 'instance';
export const CREATED_BY = 'timoni';

/** Annotations dropped when Timoni takes over objects from kubectl or Helm (§5.1). */
export const TAKEOVER_ANNOTATIONS: readonly string[] = [
  'kubectl.kubernetes.io/last-applied-configuration',
  'meta.helm.sh/release-name',
  'meta.helm.sh/release-namespace',
];

/** Field managers whose fields are re-assigned to FIELD_MANAGER (prefix match, as Flux ssa). */
export const TAKEOVER_MANAGERS: ReadonlyArray<{ name: string; operation: 'Apply' | 'Update' }> = [
  { name: 'kubectl', operation: 'Update' },
  { name: 'kubectl', operation: 'Apply' },
  { name: 'before-first-apply', operation: 'Update' },
  { name: 'helm', operation: 'Update' },
  { name: 'helm', operation: 'Apply' },
];

/** Client defaults as in Timoni (`internal/runtime/resources.go`). */
export const DEFAULT_QPS = 100;
export const DEFAULT_BURST = 300;
