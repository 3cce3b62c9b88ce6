// What a rollout does when a wave goes past its failure budget.
export const ROLLOUT_ON_FAILURE = ['halt', 'rollback'] as const;
export type RolloutOnFailure = (typeof ROLLOUT_ON_FAILURE)[number];
