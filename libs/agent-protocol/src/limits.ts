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
  /** reports kept while the hub was away that one Hello may carry; the agent sends its newest, the rest after they are acked */
  maxBufferedReports: 1000,
  /**
   * The longest (UTF-8 bytes) each string an agent sends may be; the JSON
   * documents are bounded above. The hub refuses a message with a longer
   * one; the agent cuts its free texts to fit before sending.
   */
  maxStringBytes: {
    /** a release such as "0.1.0", or a Kubernetes version such as "v1.36.0" */
    version: 64,
    /** the hub's Target, report and request ids (UUIDs) */
    id: 64,
    /** an event's type (Normal, Warning) and reason (PascalCase) */
    word: 64,
    /** a `tag@sha256:<hex>` revision: a tag of 128 and the digest */
    revision: 256,
    /** a Kubernetes name: component, instance, namespace */
    name: 253,
    /** a human message (an event's, a diff's error) */
    text: 16 * 1024,
    /** a PKCS#10 request of an ECDSA P-256 key, PEM */
    csrPem: 8 * 1024,
    /** a container image reference, `host/repository:tag@sha256:<hex>`; the hub's own agent image, sent back in an UpgradeResult */
    image: 512,
  },
  /**
   * Messages an agent may send on one stream, as token buckets: `burst` at
   * once, refilled at `perSecond`. Past them the hub closes the stream with
   * RESOURCE_EXHAUSTED; the agent reconnects after its backoff and sends the
   * reports the hub had not acknowledged again. An agent reports once per
   * run, so these are far above what one sends.
   */
  streamRates: {
    reports: { perSecond: 50, burst: 1000 },
    events: { perSecond: 100, burst: 1000 },
    /** heartbeats, acks, diffs and renewals */
    other: { perSecond: 100, burst: 2000 },
  },
} as const;
