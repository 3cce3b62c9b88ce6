import { parseServices, startHarness, type Harness } from './harness';

declare global {
  var __FLOTILLA_HARNESS__: Harness | undefined;
}

/** Starts the real services once for the whole Jest run. FLOTILLA_HARNESS_SERVICES narrows the set. */
export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const harness = await startHarness(parseServices(process.env.FLOTILLA_HARNESS_SERVICES));
  globalThis.__FLOTILLA_HARNESS__ = harness;
  process.env.FLOTILLA_HARNESS = JSON.stringify(harness.env);
  process.stderr.write(`\nharness: ${Object.keys(harness.env).join(', ')} up in ${Date.now() - started} ms (${harness.workDir})\n`);
  for (const line of harness.report) process.stderr.write(`harness: ${line}\n`);
}
