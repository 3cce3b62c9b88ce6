// flotilla-agent: the standalone Timoni controller. Flags are parsed once;
// every problem is printed and the process exits 2 before touching the cluster.
import { AgentConfigError, agentUsage, parseAgentConfig } from './config/agent-config';
import { startAgent } from './agent';
import { createLogger } from './logging/logger';

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(agentUsage());
    return;
  }
  let config;
  try {
    config = parseAgentConfig(argv, process.env);
  } catch (err) {
    if (!(err instanceof AgentConfigError)) throw err;
    process.stderr.write(`${err.message}\n\n${agentUsage()}`);
    process.exit(2);
  }
  const log = createLogger(config.logLevel);
  let agent;
  try {
    agent = await startAgent(config, log);
  } catch (err) {
    log.error('agent failed to start', { error: err instanceof Error ? err.message : String(err) });
    process.exit(1);
  }
  // printed whatever the log level: scripts and tests read the port from it
  process.stdout.write(`flotilla-agent listening on ${agent.url}\n`);
  let stopping = false;
  const stop = (sig: string) => {
    if (stopping) return;
    stopping = true;
    log.info('stopping', { signal: sig });
    // inside Kubernetes' default 30 s grace period, whatever hangs
    setTimeout(() => {
      log.error('stop took longer than 25 s; exiting');
      process.exit(1);
    }, 25_000).unref();
    void agent.stop().then(() => process.exit(0));
  };
  agent.stopped.then(
    () => {
      if (!stopping) {
        log.error('the controller ended on its own');
        process.exit(1);
      }
    },
    (err: unknown) => {
      log.error('agent failed', { error: err instanceof Error ? err.message : String(err) });
      process.exit(1);
    },
  );
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

void main();
