// The one inbound event: `artifact published`, as releases v0.3, v0.4 and
// v0.5 of the spec write it (the context names its version `version` before
// v0.5 and `specversion` from it; the subject's type is 0.1.x, 0.2.x, 0.3.x).
import { CdeventsRequestError } from './errors';
import { ociReferenceOf } from './oci-reference';
import type { ArtifactPublished } from './types';

const ACCEPTED_SPECS = /^0\.[345]\.\d+$/;
const ARTIFACT_PUBLISHED = /^dev\.cdevents\.artifact\.published\.0\.[123]\.\d+$/;
const CDEVENT_TYPE = /^dev\.cdevents\.[a-z]+\.[a-z]+\.\d+\.\d+\.\d+/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

/**
 * Reads an `artifact published` CDEvent and the OCI repository it names.
 * Throws CdeventsRequestError: 400 when it is no CDEvent, 422 when it is
 * one Flotilla does not handle (another type, another release, no OCI artifact).
 */
export function readArtifactPublished(event: unknown): ArtifactPublished {
  if (!isObject(event) || !isObject(event.context) || !isObject(event.subject)) {
    throw new CdeventsRequestError(400, 'not a CDEvent: expected a JSON object with "context" and "subject"');
  }
  const { context, subject } = event;
  const type = text(context.type);
  const id = text(context.id);
  const source = text(context.source);
  if (!type || !id || !source) throw new CdeventsRequestError(400, 'not a CDEvent: context.type, context.id and context.source are required');
  if (!CDEVENT_TYPE.test(type)) throw new CdeventsRequestError(422, `event type ${type} is not a CDEvents type (dev.cdevents.<subject>.<predicate>.<version>)`);
  if (!ARTIFACT_PUBLISHED.test(type)) {
    throw new CdeventsRequestError(422, `event type ${type} is not handled: the receiver takes dev.cdevents.artifact.published (0.1.x to 0.3.x, CDEvents v0.3 to v0.5)`);
  }
  const specVersion = text(context.specversion) ?? text(context.version);
  if (!specVersion || !ACCEPTED_SPECS.test(specVersion)) {
    throw new CdeventsRequestError(422, `CDEvents spec version ${specVersion ?? '(none)'} is not handled: the receiver takes v0.3, v0.4 and v0.5`);
  }
  const subjectId = text(subject.id);
  if (!subjectId) throw new CdeventsRequestError(400, 'artifact published: subject.id is required');
  const content = isObject(subject.content) ? subject.content : {};
  // the subject's id is the artifact's package URL; a producer without one may give an oci:// URI as content.uri
  const artifact = ociReferenceOf(subjectId) ?? (text(content.uri) ? ociReferenceOf(content.uri as string) : null);
  if (!artifact) {
    throw new CdeventsRequestError(422, `artifact ${subjectId} is not an OCI artifact: expected a pkg:oci/… package URL with repository_url, or an oci:// URI in subject.content.uri`);
  }
  return { id, source, specVersion, artifact };
}
