/** Stops what the global setup started. FLOTILLA_HARNESS_KEEP=1 keeps the logs and data. */
export default async function globalTeardown(): Promise<void> {
  await globalThis.__FLOTILLA_HARNESS__?.stop({ keepWorkDir: process.env.FLOTILLA_HARNESS_KEEP === '1' });
}
