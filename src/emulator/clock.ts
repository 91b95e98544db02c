// The emulator's clock.
// Spec: docs/emulator.md, Clock.
import { INSTANT_EXPECTED, readInstant } from "../instant.js";

/**
 * An instant (Date, ISO 8601 text, ms since the epoch) the clock reads at start and runs on from, in real time;
 * or a function the emulator asks each time (a test's clock, which may stand still).
 */
export type EmulatorNow = Date | string | number | (() => Date | number);

export type Clock = () => number;

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
