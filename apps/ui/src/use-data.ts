import { useEffect, useState } from 'preact/hooks';

export interface Loaded<T> {
  data?: T;
  error?: Error;
}

/**
 * Runs `load` whenever a dependency changes (the live stream's version is
 * one), keeping the last data on screen while the next load runs, so a live
 * update never flashes the page empty.
 */
export function useData<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<Loaded<T>>({});
  useEffect(() => {
    let current = true;
    load().then(
      (data) => current && setState({ data }),
      (error: Error) => current && setState((s) => ({ data: s.data, error })),
    );
    return () => {
      current = false;
    };
  }, deps);
  return state;
}
