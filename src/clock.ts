// The instant zoneform takes as "now". Unset, the system clock. `ZONEFORM_NOW` (an ISO 8601 instant)
// sets it for the emulator (its clock starts there: the date its seed is counted back from) and for the
// commands that count days back from now (`audit`, `inventory`, `whoami`'s token dates), so a test or a
// demo gets the same answers whatever the date it runs on. See docs/emulator.md, "Clock".

/** The environment variable that sets the clock. */
export const NOW_ENV = "ZONEFORM_NOW";

/** A date (`2026-11-25`, midnight UTC) or a date-time with `Z` or an offset; no local time. */
const INSTANT = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/i;

export const INSTANT_EXPECTED =
  "an ISO 8601 date or date-time with Z or an offset, e.g. 2026-11-25 or 2026-11-25T12:00:00Z";

/** Milliseconds since the epoch of an ISO 8601 instant, or undefined when `text` is not one. */
export function parseInstant(text: string): number | undefined {
  const t = text.trim();
  if (!INSTANT.test(t)) return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * The CLI's clock: the instant `ZONEFORM_NOW` names when it is set (a command's run is short: it reads
 * the same instant throughout), else the system clock. Throws a plain Error naming the variable when its value is not
 * an instant.
 */
export function clockFromEnv(env: Record<string, string | undefined>): () => Date {
  const text = env[NOW_ENV];
  if (text === undefined || text === "") return () => new Date();
  const ms = parseInstant(text);
  if (ms === undefined) throw new Error(`${NOW_ENV}=${JSON.stringify(text)} is not ${INSTANT_EXPECTED}`);
  return () => new Date(ms);
}
