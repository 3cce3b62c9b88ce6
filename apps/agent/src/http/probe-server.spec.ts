import { startProbeServer } from './probe-server';

describe('probe server (loopback)', () => {
  it('serves metrics, health and readiness with the reason when not ready', async () => {
    let ready: true | string = 'projects not listed yet';
    const server = await startProbeServer({
      host: '127.0.0.1',
      port: 0,
      metrics: async () => ({ contentType: 'text/plain; version=0.0.4', body: 'up 1\n' }),
      healthy: () => true,
      ready: () => ready,
    });
    try {
      const metrics = await fetch(`${server.url}/metrics`);
      expect([metrics.status, metrics.headers.get('content-type'), await metrics.text()]).toEqual([200, 'text/plain; version=0.0.4', 'up 1\n']);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      const notReady = await fetch(`${server.url}/readyz`);
      expect([notReady.status, await notReady.text()]).toEqual([503, 'projects not listed yet\n']);
      ready = true;
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      expect((await fetch(`${server.url}/other`)).status).toBe(404);
      const post = await fetch(`${server.url}/metrics`, { method: 'POST', body: 'x' });
      expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    } finally {
      await server.close();
    }
  });

  it('closes while a keep-alive connection is open', async () => {
    const server = await startProbeServer({ host: '127.0.0.1', port: 0, metrics: async () => ({ contentType: 'text/plain', body: '' }), healthy: () => true, ready: () => true });
    await fetch(`${server.url}/healthz`, { keepalive: true });
    await server.close();
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });
});
