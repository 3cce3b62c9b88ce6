// What the API server answered for each object during an apply (the apply's
// response, or the dry run's for an object left unchanged). A wait right after
// the apply takes its first look from here instead of reading every object again;
// each answer serves once, so later polls always read the cluster.
import type { ObjectAddress } from './object-client';
import type { KubeObject } from './types';

const keyOf = (a: ObjectAddress) => `${a.apiVersion}\n${a.kind}\n${a.namespace ?? ''}\n${a.name}`;

export class ObservedObjects {
  private readonly answers = new Map<string, KubeObject>();

  /** The server's answer for the object at `address`; a later answer replaces an earlier one. */
  record(address: ObjectAddress, answer: KubeObject): void {
    this.answers.set(keyOf(address), answer);
  }

  /** The answer kept for `address`, removed as it is returned. */
  take(address: ObjectAddress): KubeObject | undefined {
    const key = keyOf(address);
    const answer = this.answers.get(key);
    this.answers.delete(key);
    return answer;
  }

  get size(): number {
    return this.answers.size;
  }
}
