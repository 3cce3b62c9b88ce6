/** A total and the membership version it was counted at. */
export interface KnownTotal {
  version: string;
  total: number;
}

/**
 * Totals of lists whose membership did not change, per replica. Each entry
 * keeps the membership version (ListVersionEntity) it was counted at; a list
 * query sends that version along and the database counts again only when
 * its own version differs, in the same statement as the page. So a total is
 * always exact for the snapshot it is read in, and an unchanged fleet costs
 * no count at all.
 */
export class ListTotals {
  private readonly known = new Map<string, KnownTotal>();
  /** how many totals were reused and how many the database counted (for tests and tuning) */
  readonly stats = { reused: 0, counted: 0 };

  constructor(private readonly maxEntries = 1000) {}

  /** What is remembered for `key`: send its version with the query. */
  lookup(key: string): KnownTotal | undefined {
    return this.known.get(key);
  }

  /**
   * The total from one list query's answer: its own count when it made one
   * (then remembered), else `sent`, whose version the database confirmed.
   */
  resolve(key: string, sent: KnownTotal | undefined, answer: { version: string; total: number | null }): number {
    if (answer.total === null) {
      if (!sent) throw new Error(`list total for ${key}: the database skipped counting though no version was sent`);
      this.stats.reused++;
      return sent.total;
    }
    this.stats.counted++;
    this.known.delete(key); // re-inserted last: the Map's order is the eviction order
    this.known.set(key, { version: answer.version, total: answer.total });
    if (this.known.size > this.maxEntries) this.known.delete(this.known.keys().next().value!);
    return answer.total;
  }
}
