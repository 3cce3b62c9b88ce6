// How the CLI runs CUE: one native helper, started by the launcher and
// adopted by the engine, so both must ask for the same one.

/**
 * A command lives for a fraction of a second: the helper collects garbage
 * at 5× the live heap rather than 2×, about a tenth less wall time on a
 * podinfo build; the engine's memory limit still caps it.
 */
export const CLI_CUE_GC_PERCENT = 400;
