import { ReportBuffer } from './report-buffer';

const report = (id: string) => ({ targetId: 't', generation: 1, reportId: id, reportJson: '{}' });

describe('ReportBuffer', () => {
  it('keeps reports until acknowledged, oldest first, and drops the oldest past its capacity', () => {
    const b = new ReportBuffer(2);
    b.add(report('a'));
    b.add(report('b'));
    b.add(report('c'));
    expect(b.all().map((r) => r.reportId)).toEqual(['b', 'c']);
    expect(b.dropped).toBe(1);
    b.ack('b');
    expect(b.all().map((r) => r.reportId)).toEqual(['c']);
  });
});
