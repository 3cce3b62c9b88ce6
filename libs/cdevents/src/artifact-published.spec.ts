import { readArtifactPublished } from './artifact-published';
import { CdeventsRequestError } from './errors';
import { specExample } from './test-support';

const OCI_PURL = 'pkg:oci/shop@sha256%3A0b31b1c02ff458ad9b7b81cbdf8f028bd54699fa151f221d1e8de6817db93427?repository_url=127.0.0.1%3A5000/acme/shop&tag=latest';

/** A spec example of `release`, its subject pointed at an OCI artifact. */
function example(path: string, subjectId = OCI_PURL): Record<string, unknown> {
  const e = specExample(path) as { subject: { id: string } };
  e.subject.id = subjectId;
  return e;
}

const refusal = (event: unknown) => {
  try {
    readArtifactPublished(event);
  } catch (err) {
    if (err instanceof CdeventsRequestError) return { status: err.status, message: err.message };
    throw err;
  }
  throw new Error('accepted');
};

describe('readArtifactPublished', () => {
  it.each([
    ['v0.3.0/examples/artifact_published.json', '0.3.0'],
    ['v0.4.1/conformance/artifact_published.json', '0.4.1'],
    ['v0.5.1/conformance/artifact_published.json', '0.5.1'],
  ])('reads the spec example %s with an OCI subject', (path, specVersion) => {
    expect(readArtifactPublished(example(path))).toEqual({
      id: '271069a8-fc18-44f1-b38f-9d70a1695819',
      source: '/event/source/123',
      specVersion,
      artifact: { repository: '127.0.0.1:5000/acme/shop', tag: 'latest', digest: 'sha256:0b31b1c02ff458ad9b7b81cbdf8f028bd54699fa151f221d1e8de6817db93427' },
    });
  });

  it('takes an oci:// URI from the subject content when the id is no OCI package URL', () => {
    const e = example('v0.5.1/conformance/artifact_published.json', 'build-42') as { subject: { content: Record<string, unknown> } };
    e.subject.content.uri = 'oci://127.0.0.1:5000/acme/shop:v2';
    expect(readArtifactPublished(e).artifact).toEqual({ repository: '127.0.0.1:5000/acme/shop', tag: 'v2' });
  });

  it('refuses, as the spec examples stand, an artifact that is no OCI artifact (pkg:golang)', () => {
    expect(refusal(specExample('v0.5.1/conformance/artifact_published.json'))).toEqual({ status: 422, message: expect.stringContaining('pkg:golang/mygit.com/myorg/myapp@234fd47e07d1004f0aed9c is not an OCI artifact') });
  });

  it('refuses other event types, other releases and what is no CDEvent, naming why', () => {
    expect(refusal(specExample('v0.5.1/conformance/service_deployed.json'))).toEqual({ status: 422, message: expect.stringContaining('event type dev.cdevents.service.deployed.0.3.0 is not handled') });
    const old = example('v0.3.0/examples/artifact_published.json') as { context: Record<string, string> };
    old.context.version = '0.2.0';
    expect(refusal(old)).toEqual({ status: 422, message: 'CDEvents spec version 0.2.0 is not handled: the receiver takes v0.3, v0.4 and v0.5' });
    const future = example('v0.5.1/conformance/artifact_published.json') as { context: Record<string, string> };
    future.context.type = 'dev.cdevents.artifact.published.1.0.0';
    expect(refusal(future).status).toBe(422);
    expect(refusal({ context: { type: 'com.example.build' , id: '1', source: '/x' }, subject: { id: 'a', content: {} } })).toMatchObject({ status: 422, message: expect.stringContaining('is not a CDEvents type') });
    expect(refusal([1, 2])).toMatchObject({ status: 400 });
    expect(refusal({ context: { type: 'dev.cdevents.artifact.published.0.3.0' }, subject: {} })).toMatchObject({ status: 400, message: expect.stringContaining('context.id and context.source are required') });
  });
});
