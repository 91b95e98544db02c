// The CLI's "now": `ZONEFORM_NOW` when set (src/clock.ts), else the system clock. A value that is not an
// instant is a usage error (exit 2), not a stack trace.
import { clockFromEnv } from "../clock.js";
import { UsageError } from "../errors.js";

export function cliClock(env: Record<string, string | undefined>): () => Date {
  try {
    return clockFromEnv(env);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
