/** Bounds both ends hold to: a message above them is refused while it is read, not after. */
export const AGENT_PROTOCOL_LIMITS = {
  /** one stream message; a RunReport of a large Project stays well below */
  maxMessageBytes: 4 * 1024 * 1024,
  /** the RunReport JSON inside one report */
  maxReportJsonBytes: 2 * 1024 * 1024,
  /** the ProjectDiff JSON of one DiffResult; a larger diff leaves out its unified texts */
  maxDiffJsonBytes: 3 * 1024 * 1024,
  /** an uploaded artifact a DryRunDiff carries, once extracted (the hub's own upload bounds) */
  diffArtifact: { maxBytes: 16 * 1024 * 1024, maxFiles: 2_000 },
} as const;
