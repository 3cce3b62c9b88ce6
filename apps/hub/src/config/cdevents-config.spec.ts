import { defaultCdeventsConfig } from './cdevents-config';
import { HubConfigError, parseHubConfig } from './hub-config';

describe('CDEvents settings', () => {
  it('has no receiver by default, delivers on every replica, and retries deliveries 20 times from 1 s to 5 min', () => {
    expect(parseHubConfig({}).cdevents).toEqual(defaultCdeventsConfig());
    expect(defaultCdeventsConfig()).toEqual({ receiverSecrets: [], backoff: { initialMs: 1000, factor: 2, maxMs: 300_000, maxAttempts: 20 }, deadlineMs: 10_000, mode: 'binary', delivery: true });
  });

  it('reads every variable', () => {
    const c = parseHubConfig({
      FLOTILLA_EVENTS_PORT: '8090',
      FLOTILLA_EVENTS_SECRETS: 'first-secret-0123456789, second-secret-0123456789',
      FLOTILLA_CDEVENTS_RETRY: '200ms',
      FLOTILLA_CDEVENTS_RETRY_MAX: '1m',
      FLOTILLA_CDEVENTS_MAX_ATTEMPTS: '5',
      FLOTILLA_CDEVENTS_TIMEOUT: '3s',
      FLOTILLA_CDEVENTS_MODE: 'structured',
      FLOTILLA_CDEVENTS_DELIVERY: 'off',
    }).cdevents;
    expect(c).toEqual({ receiverPort: 8090, receiverSecrets: ['first-secret-0123456789', 'second-secret-0123456789'], backoff: { initialMs: 200, factor: 2, maxMs: 60_000, maxAttempts: 5 }, deadlineMs: 3000, mode: 'structured', delivery: false });
  });

  it('names every bad variable, never echoing a secret, and refuses a receiver without secrets', () => {
    let err: unknown;
    try {
      parseHubConfig({ FLOTILLA_EVENTS_PORT: '70000', FLOTILLA_EVENTS_SECRETS: 'short', FLOTILLA_CDEVENTS_RETRY: 'soon', FLOTILLA_CDEVENTS_MAX_ATTEMPTS: '0', FLOTILLA_CDEVENTS_MODE: 'batch', FLOTILLA_CDEVENTS_DELIVERY: 'yes' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HubConfigError);
    const problems = (err as HubConfigError).problems;
    expect(problems).toEqual([
      'FLOTILLA_EVENTS_PORT="70000": expected an integer from 0 to 65535',
      'FLOTILLA_EVENTS_SECRETS: secret 1 is shorter than 16 characters',
      'FLOTILLA_CDEVENTS_RETRY="soon": expected a duration such as 500ms, 30s or 1m, at least 10 ms',
      'FLOTILLA_CDEVENTS_MAX_ATTEMPTS="0": expected an integer from 1 to 1000',
      'FLOTILLA_CDEVENTS_MODE="batch": expected binary or structured',
      'FLOTILLA_CDEVENTS_DELIVERY="yes": expected on or off',
    ]);
    expect(() => parseHubConfig({ FLOTILLA_EVENTS_PORT: '8090' })).toThrow(/FLOTILLA_EVENTS_PORT is set but FLOTILLA_EVENTS_SECRETS is not/);
  });
});
