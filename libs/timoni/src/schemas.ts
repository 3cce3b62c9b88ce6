// CUE schemas matching the field sets documented for timoni.sh/core/v1alpha1
// (TIMONI-FORMATS §2.2, §3.2, §4.1, §5.6) and the Project RFC. Written for
// Flotilla; they are injected into the packages we load, never vendored.

/** Name rule shared by bundles and instances: 1..63 runes. */
const NAME = `string & =~"^(([a-z0-9][-a-z0-9_.]*)?[a-z0-9])?$" & strings.MinRunes(1) & strings.MaxRunes(63)`;

/** §2.2 step 1 and §5.6: added to the module's package as timoni.schema.cue. */
export const TIMONI_SCHEMA = `#Timoni: {
	apiVersion: string & =~"^v1alpha1$"
	instance: {...}
	apply: [string]: [...]
	healthChecks?: [string]: #HealthCheck
	kubeMinorVersion?: int
}

// Open, so shorthands can add inputs; names are reserved in the module package.
#HealthCheck: {
	// API group of the objects checked (non-empty, no "/").
	group!: string & =~"^[^/]+$"
	// Kind checked; absent means every kind of the group.
	kind?: string
	// The live object, filled in at wait time.
	#object: {...}
	current!:    bool
	failed?:     bool
	inProgress?: bool
	...
}

// Readiness from status conditions: conditionType gates readiness,
// failedConditionType fails fast. A lagging status.observedGeneration means
// in progress; a condition carrying its own observedGeneration counts only
// when it matches metadata.generation.
#HealthCheckForCondition: #HealthCheck & {
	conditionType:       *"Ready" | string
	failedConditionType: *"Stalled" | string
	#object: {...}
	// [if x != _|_ {x}, fallback][0] picks x when present: plain values, no
	// nested defaults (which CUE leaves unresolved).
	let _gen = [if #object.metadata.generation != _|_ {#object.metadata.generation}, -1][0]
	let _seen = [if #object.status.observedGeneration != _|_ {#object.status.observedGeneration}, _gen][0]
	let _conds = [if #object.status.conditions != _|_ for c in #object.status.conditions {c}]
	let _ready = [for c in _conds if c.type == conditionType && c.status == "True" && [if c.observedGeneration != _|_ {c.observedGeneration}, _gen][0] == _gen {c}]
	let _failed = [for c in _conds if c.type == failedConditionType && c.status == "True" && [if c.observedGeneration != _|_ {c.observedGeneration}, _gen][0] == _gen {c}]
	inProgress: _seen != _gen
	failed:     len(_failed) > 0
	current:    len(_ready) > 0
}

timoni: #Timoni

// Health check targets for Flotilla (group and kind of every check).
_flotillaHealthTargets: {
	if timoni.healthChecks != _|_ {
		for n, c in timoni.healthChecks {
			(n): {
				group: c.group
				if c.kind != _|_ {kind: c.kind}
			}
		}
	}
}
`;

/** §3.2, bound as `bundle: #Bundle` (the bundle files are one package). */
export const BUNDLE_SCHEMA = `import "strings"

#BundleName: ${NAME}

#Bundle: {
	apiVersion: string & =~"^v1alpha1$"
	name:       #BundleName
	instances: [#BundleName]: {
		module: close({
			url:     string & =~"^(oci|file)://.*$"
			version: *"latest" | string
			digest?: string
		})
		namespace: #BundleName
		values: {...}
	}
}

bundle: #Bundle
`;

/** §4.1: definitions only, no binding (authors write runtime: #Runtime & {...}). */
export const RUNTIME_SCHEMA = `#Runtime: {
	apiVersion: string & =~"^v1alpha1$"
	name:       string & =~"^(([a-z0-9][-a-z0-9_]*)?[a-z0-9])?$"
	clusters?: [string]: {
		group!:       string
		kubeContext!: string
	}
	values?: [...#RuntimeValue]
}

#RuntimeValue: {
	query: string & =~"^k8s:"
	for: {[string & =~"^(([A-Za-z0-9][-A-Za-z0-9_]*)?[A-Za-z0-9])?$"]: string}
	optional: *false | bool
}
`;

/** The Project definition of the RFC (project.cue). */
export const PROJECT_SCHEMA = `import "strings"

#Project: {
	apiVersion: string & =~"^v1alpha1$"
	name:       ${NAME}
	components: [${NAME}]: close({
		bundle: [...string]
		runtime?: [...string]
		needs?: [...string]
		wait?:    bool
		timeout?: string
	})
}

project: #Project
`;
