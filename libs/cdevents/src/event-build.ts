// Outbound CDEvents of the v0.5 release. The subject carries what the
// schema has room for (environment, service, artifact); cluster, Project,
// revision, error and a rollout wave's change travel in full as custom data,
// which every event allows.
import { revisionPurl } from './oci-reference';
import { type CDEvent, type EventFacts, SPEC_VERSION, SUBJECT_VERSION } from './types';

/** The environment a Project is: one per Project, whichever cluster it is on. */
export function environmentId(project: { name: string; namespace: string }): string {
  return `projects/${project.namespace}/${project.name}`;
}

/** Builds the CDEvent for `facts`; valid against the v0.5.1 schema of its type. */
export function buildCdevent(facts: EventFacts): CDEvent {
  return {
    context: {
      specversion: SPEC_VERSION,
      id: facts.id,
      source: facts.source,
      type: `dev.cdevents.${facts.kind}.${SUBJECT_VERSION}`,
      timestamp: facts.time.toISOString(),
    },
    subject: subjectOf(facts),
    customData: customDataOf(facts),
    customDataContentType: 'application/json',
  };
}

function subjectOf(f: EventFacts): CDEvent['subject'] {
  const env = environmentId(f.project);
  const environment = { id: env, ...(f.cluster ? { source: `/clusters/${encodeURIComponent(f.cluster)}` } : {}) };
  const artifactId = f.repository && f.revision ? revisionPurl(f.repository, f.revision) : undefined;
  const [subject, predicate] = f.kind.split('.') as [string, string];
  switch (subject) {
    case 'environment':
      return { id: env, source: f.source, content: { name: f.project.name } };
    case 'service': {
      const service = f.instance ? `${f.instance.namespace}/${f.instance.name}` : f.project.name;
      const id = f.cluster ? `${f.cluster}/${service}` : service;
      // removed has no artifact; the others require one, and a revision is known whenever an instance is applied
      const content = predicate === 'removed' ? { environment } : { environment, artifactId: artifactId ?? `pkg:generic/${encodeURIComponent(f.project.name)}` };
      return { id, source: f.source, content };
    }
    default: {
      // detected and resolved share the subject id, so a sink can pair them: the Project failing on that cluster
      const id = `incidents/${f.project.namespace}/${f.project.name}${f.cluster ? `/${f.cluster}` : ''}`;
      const description = f.error ?? f.message;
      return { id, source: f.source, content: { description, environment, ...(artifactId ? { artifactId } : {}) } };
    }
  }
}

function customDataOf(f: EventFacts): Record<string, unknown> {
  return {
    flotilla: {
      project: f.project,
      ...(f.cluster ? { cluster: f.cluster } : {}),
      ...(f.repository ? { repository: f.repository } : {}),
      ...(f.revision ? { revision: f.revision } : {}),
      ...(f.instance ? { instance: f.instance } : {}),
      reason: f.reason,
      message: f.message,
      ...(f.error ? { error: f.error } : {}),
      ...(f.wave ? { wave: f.wave } : {}),
    },
  };
}
