// The CLI's "now": `ZONEFORM_NOW` when set (src/instant.ts), else the system clock. A value that is not an
// instant, or a day or time that does not exist (`2026-02-30`), is a usage error (exit 3), not a stack trace.
import { clockFromEnv } from "../instant.js";
import { UsageError } from "../errors.js";

export function cliClock(env: Record<string, string | undefined>): () => Date {
  try {
    return clockFromEnv(env);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
