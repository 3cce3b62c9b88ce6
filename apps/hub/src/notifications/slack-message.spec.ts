import { slackMessage } from './slack-message';

const wave = { index: 0, groups: ['staging'], state: 'soaking', previous: 'progressing', total: 2, healthy: 2, progressing: 0, pending: 0, failed: 0 };

describe('the Slack-compatible message of a wave transition', () => {
  it('is a JSON body with plain text on two lines: project, wave, groups, state; revision and counts', () => {
    expect(slackMessage('shop', 'v1@sha256:2222', wave)).toEqual({
      text: 'Flotilla project shop: wave 0 (staging) is soaking (was progressing)\nrevision v1@sha256:2222: 2 of 2 healthy, 0 moving, 0 waiting, 0 failed',
    });
    expect(Object.keys(slackMessage('shop', 'v1@sha256:2222', wave))).toEqual(['text']);
  });

  it('names every group of the wave and says rolled back and awaiting approval in words', () => {
    const text = slackMessage('shop', 'v1@sha256:2222', { ...wave, index: 2, groups: ['prod-eu', 'prod-us'], state: 'rolledBack', previous: 'failed' }).text;
    expect(text.split('\n')[0]).toBe('Flotilla project shop: wave 2 (prod-eu, prod-us) is rolled back (was failed)');
    expect(slackMessage('shop', 'v1', { ...wave, state: 'awaitingApproval', previous: 'waiting' }).text).toContain('is awaiting approval (was waiting)');
  });

  it("adds the Project's page on a third line when the hub knows its address", () => {
    const text = slackMessage('shop', 'v1@sha256:2222', wave, 'https://flotilla.example.com/#/projects/shop').text;
    expect(text.split('\n')).toEqual([expect.stringMatching(/^Flotilla project shop: /), expect.stringMatching(/^revision /), 'https://flotilla.example.com/#/projects/shop']);
  });

  it('escapes what Slack reads as markup, so no text becomes a link or a mention', () => {
    const text = slackMessage('shop', 'x<!channel>&<https://evil.example|click>', wave).text;
    expect(text).toContain('x&lt;!channel&gt;&amp;&lt;https://evil.example|click&gt;');
    expect(text).not.toMatch(/[<>]/);
  });
});
