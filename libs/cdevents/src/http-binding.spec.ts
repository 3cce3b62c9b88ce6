import { CdeventsRequestError } from './errors';
import { buildCdevent } from './event-build';
import { fromHttpMessage, toHttpMessage } from './http-binding';

const event = buildCdevent({
  id: 'e1',
  time: new Date('2026-03-04T05:06:07.000Z'),
  source: '/flotilla/hub',
  kind: 'environment.created',
  project: { name: 'shop', namespace: 'apps' },
  reason: 'Created',
  message: 'Project created at generation 1',
});

describe('HTTP binding (cloudevents SDK)', () => {
  it('writes binary mode: ce- headers from the context, the CDEvent as JSON body, and reads it back', () => {
    const { headers, body } = toHttpMessage(event, 'binary');
    expect(headers).toMatchObject({ 'ce-specversion': '1.0', 'ce-id': 'e1', 'ce-source': '/flotilla/hub', 'ce-type': 'dev.cdevents.environment.created.0.3.0', 'ce-time': '2026-03-04T05:06:07.000Z', 'content-type': 'application/json' });
    expect(JSON.parse(body)).toEqual(event);
    expect(fromHttpMessage(headers, body)).toEqual(event);
  });

  it('writes structured mode: one CloudEvents JSON document with the CDEvent as data, and reads it back', () => {
    const { headers, body } = toHttpMessage(event, 'structured');
    expect(headers['content-type']).toMatch(/^application\/cloudevents\+json/);
    expect(JSON.parse(body)).toMatchObject({ specversion: '1.0', id: 'e1', type: 'dev.cdevents.environment.created.0.3.0', data: event });
    expect(fromHttpMessage(headers, body)).toEqual(event);
  });

  it('reads a bare CDEvent posted as JSON, and refuses other media types and broken JSON', () => {
    expect(fromHttpMessage({ 'content-type': 'application/json; charset=utf-8' }, JSON.stringify(event))).toEqual(event);
    expect(() => fromHttpMessage({ 'content-type': 'text/plain' }, 'hello')).toThrow(CdeventsRequestError);
    expect(() => fromHttpMessage({ 'content-type': 'application/json' }, '{')).toThrow(/body is not JSON/);
    expect(() => fromHttpMessage({ 'content-type': 'application/cloudevents+json' }, JSON.stringify({ specversion: '1.0', id: 'x' }))).toThrow(/has no data/);
    expect(() => fromHttpMessage({ 'content-type': 'application/cloudevents-batch+json' }, '[]')).toThrow(CdeventsRequestError);
  });
});
