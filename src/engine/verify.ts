// The checks that stand between a plan and the first write (engine/apply.ts runs them; none writes).
// A plan is trusted in nothing zoneform cannot re-derive: it is made anew from the desired state it carries
// and applied only if the new one is the same, so an edited body, path or secret reference is never sent.
import { checkConfigSources } from "../config/index.js";
import { ConfigError, RuntimeError, StalePlanError, UnsafePlanError } from "../errors.js";
import type { DesiredState } from "../sections/index.js";
import type { Change, Plan, ZonePlan, Env } from "../model/index.js";
import {
  assertConsistent,
  compareFingerprints,
  derivedSalt,
  saltMaterial,
  planDigest,
  shownTemplate,
  unitCount,
  unitKey,
  unitName,
} from "../plan/index.js";
import { canonicalJson } from "../canonical-json.js";
import { changedInputs, kdfProblem } from "../secrets/index.js";
import { printable } from "../safe-text.js";

/** The configuration document a saved plan was made from. */
function desiredDocument(plan: Plan): Record<string, unknown> {
  return {
    version: 1,
    ...(plan.account_id !== undefined ? { account_id: plan.account_id } : {}),
    ...(plan.safety !== undefined ? { safety: plan.safety } : {}),
    ...(plan.zones.some((z) => z.scope === "account")
      ? { accounts: plan.zones.filter((z) => z.scope === "account").map((z) => z.desired) }
      : {}),
    zones: plan.zones.filter((z) => z.scope !== "account").map((z) => z.desired),
  };
}

export async function assertSameInputs(
  plan: Plan,
  file: string,
  env: Env,
  used: readonly string[] = [],
): Promise<void> {
  const changed = await changedInputs(plan.inputs, env, used);
  if (changed.length === 0) return;
  // A value that differs under a salt that is not the plan's own says nothing of the value.
  if (!saltMatches(plan))
    throw inputsEdited(
      `the saved plan ${file}`,
      "the salt of its bound values is not the one derived from its content",
    );
  throw new StalePlanError(
    `the saved plan ${file} was made with other values of its environment references; nothing was ` +
      `written:\n${changed.map((c) => `  ${c}`).join("\n")}\n` +
      "Set them as when the plan was made, or make a new plan and review it.",
    changed,
  );
}

function saltMatches(plan: Plan): boolean {
  return plan.inputs === undefined || plan.inputs.salt === derivedSalt(saltMaterial(plan));
}

function inputsEdited(label: string, why: string): StalePlanError {
  return new StalePlanError(
    `${label} cannot be checked: ${why}. It was changed after zoneform made it; nothing was written. Make a ` +
      "new plan and review it.",
    ["inputs"],
  );
}

export function assertInputsForm(plan: Plan, label: string, opts: { salt: boolean }): void {
  if (plan.inputs === undefined) return;
  const problem = kdfProblem(plan.inputs.kdf);
  if (problem !== undefined) throw inputsEdited(label, problem);
  if (opts.salt && !saltMatches(plan))
    throw inputsEdited(label, "the salt of its bound values is not the one derived from its content");
}

export async function desiredFromPlan(plan: Plan, file: string, env: Env): Promise<DesiredState> {
  const shown = `${file} (its desired state)`;
  const result = checkConfigSources([{ file: shown, text: JSON.stringify(desiredDocument(plan)) }], env);
  if (result.errors.length > 0 || !result.desired) {
    throw new ConfigError(
      result.errors,
      `the plan file ${file} cannot be applied as the environment ` +
        `stands:\n${result.errors.map((e) => `  ${e.pointer || "/"}  ${e.message}`).join("\n")}\nSet the ` +
        `variables as when the plan was made, or make the plan again.`,
    );
  }
  await assertSameInputs(plan, file, env, result.desired.secrets.names);
  return result.desired;
}

function opText(op: Change["operations"][number] | undefined): string {
  return op ? printable(`${op.method} ${op.path}`) : "nothing";
}

const same = (x: unknown, y: unknown) => canonicalJson(x) === canonicalJson(y);
const quoted = (s: string) => printable(JSON.stringify(s));

/** The fields shown differently, by name ("in another order" when only their order differs). */
function differingFields(a: Change["fields"], b: Change["fields"]): string | undefined {
  if (same(a, b)) return undefined;
  const names = [...new Set([...a, ...b].map((f) => f.field))];
  const differ = names.filter(
    (n) =>
      !same(
        a.filter((f) => f.field === n),
        b.filter((f) => f.field === n),
      ),
  );
  if (differ.length === 0) return "its fields in another order";
  return `its field${differ.length === 1 ? "" : "s"} ${differ.map(quoted).join(", ")}`;
}

/** What a saved change shows otherwise than the one planned now, beside its calls. */
function shownDifferences(a: Change, b: Change): string[] {
  const parts: string[] = [];
  if ((a.summary ?? null) !== (b.summary ?? null)) parts.push("its summary");
  if (!same(a.notes ?? [], b.notes ?? [])) parts.push("its notes");
  const fields = differingFields(a.fields, b.fields);
  if (fields !== undefined) parts.push(fields);
  if (!same(a.before ?? null, b.before ?? null)) parts.push("its value before");
  if (!same(a.after ?? null, b.after ?? null)) parts.push("its value after");
  return parts;
}

function firstDifference(saved: Change[], fresh: Change[]): string | undefined {
  const n = Math.max(saved.length, fresh.length);
  for (let i = 0; i < n; i++) {
    const a = saved[i];
    const b = fresh[i];
    if (!a || !b) {
      const c = (a ?? b)!;
      return (
        `the saved plan ${a ? "has" : "lacks"} ${c.kind} ${printable(c.resource)} ${quoted(c.identity)} that ` +
        `zoneform ${a ? "does not plan" : "plans"} now`
      );
    }
    if (
      a.kind !== b.kind ||
      a.resource !== b.resource ||
      a.identity !== b.identity ||
      (a.live_id ?? null) !== (b.live_id ?? null)
    ) {
      const id = (c: Change) => (c.live_id !== undefined ? ` (id ${quoted(c.live_id)})` : "");
      return (
        `change ${i + 1} is ${a.kind} ${printable(a.resource)} ${quoted(a.identity)}${id(a)} in the file, ` +
        `${b.kind} ${printable(b.resource)} ${quoted(b.identity)}${id(b)} now`
      );
    }
    const what = `${printable(a.resource)} ${quoted(a.identity)}`;
    const m = Math.max(a.operations.length, b.operations.length);
    for (let j = 0; j < m; j++) {
      const x = a.operations[j];
      const y = b.operations[j];
      if (opText(x) !== opText(y)) return `${what}: the file says ${opText(x)}, zoneform plans ${opText(y)}`;
      if (!same(x!.query ?? null, y!.query ?? null) || !same(x!.body ?? null, y!.body ?? null))
        return `${what}: the body of ${opText(x)} differs from what zoneform plans`;
      if (!same(x, y)) return `${what}: ${opText(x)} differs from what zoneform plans (how it finds what it creates)`;
    }
    const shown = shownDifferences(a, b);
    if (shown.length > 0) return `${what}: the file shows ${shown.join(", ")} otherwise than zoneform plans now`;
  }
  return undefined;
}

function zoneDifferences(was: ZonePlan, now: ZonePlan): string[] {
  const out: string[] = [];
  if ((was.name ?? null) !== (now.name ?? null))
    out.push(`the file names the zone ${quoted(was.name ?? "")}, zoneform ${quoted(now.name ?? "")}`);
  if (!same(was.warnings, now.warnings)) out.push("the file shows other warnings than zoneform finds now");
  if (!same(was.errors, now.errors)) out.push("the file shows other errors than zoneform finds now");
  return out;
}

export function assertSamePlan(saved: Plan, fresh: Plan): void {
  const stale: string[] = [];
  const edited: string[] = [];
  const savedZones = new Map(saved.zones.map((z) => [unitKey(z), z]));
  const freshIds = new Set(fresh.zones.map((z) => unitKey(z)));
  for (const was of saved.zones) {
    if (!freshIds.has(unitKey(was))) edited.push(`${printable(unitName(was))}: not planned now`);
  }
  for (const now of fresh.zones) {
    const was: ZonePlan | undefined = savedZones.get(unitKey(now));
    const label = printable(unitName(now));
    if (!was) {
      edited.push(`${label}: not in the saved plan`);
      continue;
    }
    for (const d of compareFingerprints(was.fingerprints, now.fingerprints))
      stale.push(`${label}: ${printable(d.key)} ${d.how} since the plan was made`);
    if (now.errors.length > 0) stale.push(...now.errors.map((e) => `${label}: ${e}`));
    if (stale.length > 0) continue;
    const diff = firstDifference(was.changes, now.changes);
    if (diff) edited.push(`${label}: ${diff}`);
    edited.push(...zoneDifferences(was, now).map((d) => `${label}: ${d}`));
  }
  if (stale.length > 0) {
    throw new StalePlanError(
      `the saved plan is stale; nothing was written:\n${stale.map((s) => `  ${s}`).join("\n")}\nMake a new ` +
        `plan and review it.`,
      stale,
    );
  }
  if (edited.length > 0) {
    throw new StalePlanError(
      `the saved plan is not what zoneform plans for the desired state it carries; nothing was ` +
        `written:\n${edited.map((s) => `  ${s}`).join("\n")}\n` +
        "The plan file was changed after it was made (or made by another version of zoneform). Make a new " +
        "plan and review it.",
      edited,
    );
  }
}

export function assertDigest(plan: Plan, label: string, expectDigest?: string): string {
  const digest = planDigest(plan);
  if (plan.digest !== undefined && plan.digest !== digest) {
    throw new RuntimeError(
      `${label} was changed after it was made: its content hashes to ${digest}, not to the ${plan.digest} ` +
        `it records. Nothing was written; make a new plan.`,
    );
  }
  if (expectDigest !== undefined && expectDigest !== digest) {
    throw new RuntimeError(`${label} is ${digest}, not the reviewed ${expectDigest}; nothing was written.`);
  }
  return digest;
}

export function checkSavedPlan(plan: Plan, label: string, expectDigest?: string, salt = true): string {
  const digest = assertDigest(plan, label, expectDigest);
  assertInputsForm(plan, label, { salt: false });
  assertConsistent(plan, label);
  if (salt) assertInputsForm(plan, label, { salt: true });
  return digest;
}

export interface SafetyViolation {
  zone: string;
  deletes: number;
  max: number;
}

export function findSafetyViolations(plan: Plan, maxDeletes: number): SafetyViolation[] {
  const out: SafetyViolation[] = [];
  for (const z of plan.zones) {
    const deletes = z.changes.filter((c) => c.kind === "delete" || c.kind === "replace").length;
    if (deletes > maxDeletes) out.push({ zone: unitName(z), deletes, max: maxDeletes });
  }
  return out;
}

export function describeViolation(v: SafetyViolation): string {
  return `[${printable(v.zone)}] too many deletes, ${v.deletes} is over ${v.max} (safety.max_deletes), force required`;
}

export function assertSafe(plan: Plan, maxDeletes: number, force: boolean): void {
  const violations = findSafetyViolations(plan, maxDeletes);
  if (violations.length === 0 || force) return;
  throw new UnsafePlanError(
    `${violations.map(describeViolation).join("\n")}\n` +
      "Nothing was changed. Review the deletes above; run again with --force to apply them, " +
      "or raise safety.max_deletes in the file.",
  );
}

export function assertNoZoneErrors(plan: Plan): void {
  const failed = plan.zones.filter((z) => z.errors.length > 0);
  if (failed.length === 0) return;
  throw new RuntimeError(
    `${unitCount(failed)} could not be planned; nothing was changed:\n${groupZoneErrors(failed).join("\n")}`,
  );
}

function groupZoneErrors(
  zones: ReadonlyArray<{ zone_id: string; name?: string; scope?: "account"; errors: readonly string[] }>,
): string[] {
  const groups = new Map<string, Array<(typeof zones)[number]>>();
  for (const z of zones) {
    for (const e of z.errors.map(shownTemplate)) {
      const key = e.split(z.zone_id).join("{zone}");
      const units = groups.get(key) ?? [];
      units.push(z);
      groups.set(key, units);
    }
  }
  const lines: string[] = [];
  for (const [text, units] of groups) {
    const names = units.map((u) => unitName(u));
    if (units.length === 1) {
      lines.push(`  [${names[0]}] ${text.split("{zone}").join(units[0]!.zone_id)}`);
      continue;
    }
    const shown = names.length > 5 ? `${names.slice(0, 5).join(", ")} and ${names.length - 5} more` : names.join(", ");
    lines.push(`  ${text}`, `    stopped ${unitCount(units)}: ${shown}`);
  }
  return lines;
}
