import type { HarnessEnv } from './types';

/** The endpoints started by Jest's global setup (or by `npm run harness -- up`). */
export function harnessEnv(): HarnessEnv {
  const raw = process.env.FLOTILLA_HARNESS;
  if (!raw) {
    throw new Error('FLOTILLA_HARNESS is not set: run the tests through `npm test` (its global setup starts the services)');
  }
  return JSON.parse(raw) as HarnessEnv;
}
