import { Injectable } from '@nestjs/common';
import type { AdvanceClaimTerms, ClaimedTarget } from './lease.repository';

/** The scheduler's side of a claim made with a new digest's advance. */
export interface AdvanceClaimant {
  /** What may be claimed now, held for this claim until `take`; undefined: nothing may be. */
  terms(): AdvanceClaimTerms | undefined;
  /** The claims made on `terms` (none when the advance failed): the scheduler runs them and frees what `terms` held. */
  take(terms: AdvanceClaimTerms, claimed: readonly ClaimedTarget[]): void;
}

/**
 * Lets the source poller, which advances a Project's Targets when its tag
 * moves, claim this replica's agent Targets in the same statement and hand
 * them to the scheduler. The scheduler registers itself here: it depends
 * on the poller, so the poller cannot depend on it.
 */
@Injectable()
export class AdvanceClaims {
  private claimant: AdvanceClaimant | undefined;

  register(claimant: AdvanceClaimant): void {
    this.claimant = claimant;
  }

  get current(): AdvanceClaimant | undefined {
    return this.claimant;
  }
}
