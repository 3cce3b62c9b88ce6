import { join } from 'node:path';

/** The hub's own test module (testdata/modules/greeter). */
export const GREETER_MODULE_DIR = join(__dirname, '../testdata/modules/greeter');

/** A Project with two components, `app` needing `infra`; `broken` adds a value the module refuses. */
export function greeterProjectFiles(moduleUrl: string, ns: string, rev: { cache: boolean; shout: boolean; broken?: boolean }): Record<string, string> {
  return {
    'project.cue': `project: {
	apiVersion: "v1alpha1"
	name:       "greet"
	components: {
		infra: {
			bundle: ["./infra/bundle.cue"]
			wait:    true
			timeout: "1m"
		}
		app: {
			bundle: ["./app/bundle.cue"]
			needs: ["infra"]
		}
	}
}
`,
    'infra/bundle.cue': `bundle: {
	apiVersion: "v1alpha1"
	name:       "infra"
	instances: {
		db: {
			module: {url: "${moduleUrl}", version: "1.0.0"}
			namespace: "${ns}"
			values: greeting: "db"
		}
${rev.cache ? `		cache: {
			module: {url: "${moduleUrl}", version: "1.0.0"}
			namespace: "${ns}"
			values: greeting: "cache"
		}
` : ''}	}
}
`,
    'app/bundle.cue': `bundle: {
	_cluster: string @timoni(runtime:string:TIMONI_CLUSTER_NAME)
	apiVersion: "v1alpha1"
	name:       "app"
	instances: web: {
		module: {url: "${moduleUrl}", version: "1.0.0"}
		namespace: "${ns}"
		values: {greeting: "web", cluster: _cluster, shout: ${rev.shout}${rev.broken ? ', volume: 11' : ''}}
	}
}
`,
  };
}
