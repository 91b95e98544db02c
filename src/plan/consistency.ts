// The checks of a saved plan that need neither the API nor the environment.
import { StalePlanError } from "../errors.js";
import type { Change, Plan, ZonePlan } from "../model/index.js";
import { printable } from "../safe-text.js";
import { type ResourceKind, RESOURCE_KINDS } from "../sections/index.js";
import { canonicalJson } from "../canonical-json.js";
import { summariseZones, summaryLine } from "./summary.js";
import { unitName } from "./units.js";

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

/** The last segment of an API path, as the id it names. */
function lastSegment(path: string): string {
  const seg = path.split("/").pop() ?? "";
  try {
    return decodeURIComponent(seg);
  } catch {
    return seg;
  }
}

function kindProblem(c: Change): string | undefined {
  const methods = c.operations.map((op) => op.method);
  const deletes = methods.filter((m) => m === "DELETE").length;
  switch (c.kind) {
    case "delete":
      if (methods.length === 0 || deletes !== methods.length)
        return `is shown as a delete, but its calls are ${methods.join(", ") || "none"}`;
      break;
    case "replace":
      if (deletes === 0 || deletes === methods.length)
        return "is shown as a replacement, but its calls do not both create and delete";
      break;
    default:
      if (deletes > 0) return `is shown as ${c.kind === "create" ? "a create" : "an update"}, but it sends a DELETE`;
      if (c.kind === "update" && methods.length === 0) return "is shown as an update, but it makes no call";
  }
  return undefined;
}

/** Whether the live id shown is the one its calls address. */
function liveIdProblem(c: Change): string | undefined {
  if (c.live_id === undefined || c.kind === "create") return undefined;
  const deletes = c.operations.filter((op) => op.method === "DELETE");
  if (deletes.length > 0) {
    return deletes.some((op) => lastSegment(op.path) === c.live_id)
      ? undefined
      : `is shown with id ${printable(JSON.stringify(c.live_id))}, but it deletes another`;
  }
  const addressed = c.operations.some((op) => op.path.split("/").some((seg) => seg === c.live_id));
  return addressed ? undefined : `is shown with id ${printable(JSON.stringify(c.live_id))}, but no call addresses it`;
}

/** A value at a dot path of a body, or undefined. */
function at(body: unknown, path: string): { found: boolean; value?: unknown } {
  let here: unknown = body;
  for (const key of path.split(".")) {
    if (here === null || typeof here !== "object" || Array.isArray(here) || !Object.hasOwn(here, key))
      return { found: false };
    here = (here as Record<string, unknown>)[key];
  }
  return { found: true, value: here };
}

function bodyProblems(c: Change, kind: ResourceKind | undefined): string[] {
  const names = kind?.bodyFields;
  if (!names || c.kind === "delete") return [];
  const bodies = c.operations.filter((op) => op.method !== "DELETE" && op.body !== undefined).map((op) => op.body);
  if (bodies.length === 0) return [];
  const out: string[] = [];
  for (const name of names) {
    const shown = c.fields.find((f) => f.field === name);
    const sent = bodies.map((b) => at(b, name)).find((v) => v.found);
    if (shown && !shown.sensitive && shown.after !== undefined) {
      if (!sent) out.push(`shows ${name}, which its call does not send`);
      else if (!same(sent.value, shown.after)) out.push(`shows ${name} as another value than its call sends`);
      continue;
    }
    if (!sent || shown) continue;
    const before = at(c.before, name);
    if (!before.found || !same(before.value, sent.value)) out.push(`sends ${name}, which it does not show`);
  }
  return out;
}

function zoneLabel(z: ZonePlan): string {
  return printable(unitName(z));
}

export function planInconsistencies(plan: Plan, kinds: readonly ResourceKind[] = RESOURCE_KINDS): string[] {
  const out: string[] = [];
  const counted = summariseZones(plan.zones);
  if (!same(plan.summary, counted)) {
    out.push(
      `its summary says "${summaryLine(plan.summary)}", its changes make "${summaryLine(counted)}"`.replace(
        /Plan: /g,
        "",
      ),
    );
  }
  const byName = new Map(kinds.map((k) => [k.name, k]));
  for (const z of plan.zones) {
    const declared = z.desired as { name?: unknown } | undefined;
    const declaredName = typeof declared?.name === "string" ? declared.name : undefined;
    if ((declaredName === undefined || !declaredName.includes("${")) && declaredName !== z.name) {
      out.push(
        `zone ${printable(z.zone_id)} is shown as ${printable(JSON.stringify(z.name ?? null))}, its desired ` +
          `state names it ${printable(JSON.stringify(declaredName ?? null))}`,
      );
    }
    for (const c of z.changes) {
      const what = `${zoneLabel(z)}: ${c.kind} ${printable(c.resource)} ${printable(JSON.stringify(c.identity))}`;
      const problems = [kindProblem(c), liveIdProblem(c), ...bodyProblems(c, byName.get(c.resource))];
      for (const p of problems) if (p !== undefined) out.push(`${what} ${p}`);
    }
  }
  return out;
}

export function assertConsistent(plan: Plan, name: string): void {
  const found = planInconsistencies(plan);
  if (found.length === 0) return;
  const shown = found.slice(0, 10).map((f) => `  ${f}`);
  if (found.length > 10) shown.push(`  and ${found.length - 10} more`);
  throw new StalePlanError(
    `${name} shows what its operations do not do; nothing was read or written:\n${shown.join("\n")}\n` +
      "It was changed after zoneform made it. Make a new plan and review it.",
    found,
  );
}
