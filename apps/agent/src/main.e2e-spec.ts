import { startAgentProcess } from '../test/agent-process';

// The compiled entry point refuses bad settings before it touches a cluster,
// listing every problem, and says plainly when it cannot reach one.

describe('flotilla-agent (compiled) settings', () => {
  it('prints every problem and the usage, and exits 2', async () => {
    const agent = startAgentProcess(['--concurrent=0', '--poll-interval=often', '--bogus']);
    expect(await agent.exited).toBe(2);
    const out = agent.output();
    expect(out).toContain('invalid agent configuration:');
    expect(out).toContain('  - unknown flag --bogus');
    expect(out).toContain('  - --concurrent="0" must be a whole number from 1 to 64');
    expect(out).toContain('  - --poll-interval="often" is not a duration');
    expect(out).toContain('usage: flotilla-agent [flags]');
  });

  it('prints the usage on --help and exits 0', async () => {
    const agent = startAgentProcess(['--help']);
    expect(await agent.exited).toBe(0);
    expect(agent.output()).toContain('--leader-elect');
  });

  it('exits 1 naming the missing kubeconfig', async () => {
    const agent = startAgentProcess(['--kubeconfig=/nonexistent/kubeconfig', '--http-address=127.0.0.1:0']);
    expect(await agent.exited).toBe(1);
    expect(agent.output()).toMatch(/kubeconfig \/nonexistent\/kubeconfig cannot be read: ENOENT.*agent failed to start/);
  });

  it('exits 1 outside a pod without a kubeconfig, saying what is missing', async () => {
    const agent = startAgentProcess(['--http-address=127.0.0.1:0']);
    expect(await agent.exited).toBe(1);
    expect(agent.output()).toContain('KUBERNETES_SERVICE_HOST');
  });
});
