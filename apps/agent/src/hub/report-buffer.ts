import type { RunReport as ReportMessage } from '@flotilla/agent-protocol';

/**
 * Run reports the hub has not acknowledged yet, oldest first, bounded: when
 * the hub is away long enough to fill it, the oldest go (the Project's
 * status in the cluster still holds the latest). Replayed on every Hello.
 */
export class ReportBuffer {
  private readonly reports = new Map<string, ReportMessage>();
  dropped = 0;

  constructor(readonly capacity: number) {}

  add(report: ReportMessage): void {
    this.reports.set(report.reportId, report);
    while (this.reports.size > this.capacity) {
      const oldest = this.reports.keys().next().value as string;
      this.reports.delete(oldest);
      this.dropped++;
    }
  }

  ack(reportId: string): void {
    this.reports.delete(reportId);
  }

  all(): ReportMessage[] {
    return [...this.reports.values()];
  }

  get size(): number {
    return this.reports.size;
  }
}
