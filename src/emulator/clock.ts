// The emulator's clock: the date its seed and generated Page Shield data are counted back from, the
// time it stamps on what it writes (updated_at, last_updated, …) and sends as `Date`, and the instant it
// checks token limits against. Rate limits and delays run on real time whatever the clock says.
import { INSTANT_EXPECTED, readInstant } from "../instant.js";

/**
 * An instant (Date, ISO 8601 text, ms since the epoch) the clock reads at start and runs on from, in
 * real time; or a function the emulator asks each time (a test's clock, which may stand still).
 */
export type EmulatorNow = Date | string | number | (() => Date | number);

/** Milliseconds since the epoch, now. */
export type Clock = () => number;

/** The instant a fixed `now` names, in ms. Throws a RangeError for a value that is not one. */
export function instantOf(now: Date | string | number): number {
  if (typeof now === "string") {
    const r = readInstant(now);
    if ("problem" in r) throw new RangeError(`now: ${JSON.stringify(now)} ${r.problem}`);
    return r.ms;
  }
  const ms = now instanceof Date ? now.getTime() : now;
  if (!Number.isFinite(ms)) throw new RangeError(`now: ${JSON.stringify(String(now))} is not ${INSTANT_EXPECTED}`);
  return ms;
}

/** The clock `now` describes; the system clock when it is undefined. Throws a RangeError for a bad value. */
export function clockOf(now: EmulatorNow | undefined): Clock {
  if (now === undefined) return Date.now;
  if (typeof now === "function") {
    return () => {
      const v = now();
      const ms = v instanceof Date ? v.getTime() : v;
      if (!Number.isFinite(ms)) throw new RangeError("the emulator's clock function answered no valid instant");
      return ms;
    };
  }
  const offset = instantOf(now) - Date.now();
  return () => Date.now() + offset;
}

/** `ms` as the API writes timestamps: ISO 8601 UTC with milliseconds. */
export function isoOf(ms: number): string {
  return new Date(ms).toISOString();
}
