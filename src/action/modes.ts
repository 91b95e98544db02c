// What the Action does in each mode.
// Spec: docs/ci.md.
import { apply } from "./apply-mode.js";
import { ActionFailed, type Context } from "./context.js";
import { plan } from "./plan-mode.js";
import { audit, drift } from "./schedule-modes.js";

const MODES = ["plan", "apply", "drift", "audit"] as const;
export type Mode = (typeof MODES)[number];

export const RUN: Record<Mode, (ctx: Context) => Promise<void>> = { plan, apply, drift, audit };

/** The modes to run: the `mode` input, else the event's. */
export function modesFor(mode: string, eventName: string): Mode[] {
  if (mode !== "") {
    if (!(MODES as readonly string[]).includes(mode))
      throw new ActionFailed(`mode ${JSON.stringify(mode)}: expected one of ${MODES.join(", ")}`);
    return [mode as Mode];
  }
  if (eventName === "pull_request") return ["plan"];
  if (eventName === "push") return ["apply"];
  if (eventName === "schedule") return ["drift", "audit"];
  throw new ActionFailed(
    `no mode for the event ${JSON.stringify(eventName)}: set the input mode (${MODES.join(", ")})`,
  );
}
