import { runTrigger, type TriggerFacts } from './trigger';

const R = 'latest@sha256:aa';
const settled: TriggerFacts = { deleting: false, generation: 2, observedGeneration: 2, lastAppliedRevision: R, attempt: 0, reconcileRequestedAt: null };

describe('runTrigger', () => {
  it('names the most specific reason', () => {
    expect(runTrigger({ ...settled, deleting: true, observedGeneration: null }, R)).toBe('Deletion');
    expect(runTrigger({ ...settled, observedGeneration: null, reconcileRequestedAt: new Date() }, R)).toBe('Created');
    expect(runTrigger({ ...settled, reconcileRequestedAt: new Date(), generation: 3 }, R)).toBe('Manual');
    expect(runTrigger({ ...settled, generation: 3, lastAppliedRevision: null }, R)).toBe('SpecChanged');
    expect(runTrigger({ ...settled, attempt: 2, lastAppliedRevision: null }, R)).toBe('Retry');
    expect(runTrigger({ ...settled, lastAppliedRevision: 'latest@sha256:bb' }, R)).toBe('NewRevision');
    expect(runTrigger(settled, R)).toBe('Interval');
  });
});
