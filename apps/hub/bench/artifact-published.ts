// The signed CDEvent `artifact published` a CI step sends after moving a
// tag, as benches send it to the hub's receiver (which resolves the tag now).
import { randomUUID } from 'node:crypto';
import { SIGNATURE_HEADER, signBody, toHttpMessage, type CDEvent } from '@flotilla/cdevents';

export async function sendArtifactPublished(receiverPort: number, secret: string, image: { registry: string; repository: string }, tag: string): Promise<void> {
  const name = image.repository.split('/').pop()!;
  const event: CDEvent = {
    context: { specversion: '0.5.1', id: randomUUID(), source: '/bench/ci', type: 'dev.cdevents.artifact.published.0.3.0', timestamp: new Date().toISOString() },
    subject: { id: `pkg:oci/${name}?repository_url=${encodeURIComponent(`${image.registry}/${image.repository}`)}&tag=${tag}`, content: {} },
  };
  const { headers, body } = toHttpMessage(event, 'binary');
  const res = await fetch(`http://127.0.0.1:${receiverPort}/`, { method: 'POST', body, headers: { ...headers, [SIGNATURE_HEADER]: signBody(secret, body) } });
  if (res.status !== 202) throw new Error(`the hub's CDEvents receiver answered ${res.status}: ${await res.text()}`);
}
