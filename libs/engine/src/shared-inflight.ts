/**
 * Calls under way, by key: a call asked for while an equal one is still under
 * way gets that one's answer instead of going out again. Nothing is kept once
 * it settles, so a later call always asks afresh.
 */
export class SharedInflight<T> {
  private readonly pending = new Map<string, Promise<T>>();

  run(key: string, call: () => Promise<T>): Promise<T> {
    let p = this.pending.get(key);
    if (!p) {
      p = call().finally(() => this.pending.delete(key));
      this.pending.set(key, p);
    }
    return p;
  }
}
