// The CLI's "now": `ZONEFORM_NOW` when set (src/instant.ts), else the system clock.
import { clockFromEnv } from "../instant.js";
import { UsageError } from "../errors.js";

export function cliClock(env: Record<string, string | undefined>): () => Date {
  try {
    return clockFromEnv(env);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
