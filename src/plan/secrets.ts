// A plan holds references, never values: its strings are in the file's template syntax (src/template.ts), live
// values included (src/secrets templatizes every answer).
import type { Plan, SecretValues, ValueRedactor } from "../model/index.js";
import { RuntimeError } from "../errors.js";
import { SENSITIVE, mapStrings, redactDestination } from "../redact.js";
import { safeJson } from "../safe-text.js";
import { hideCredentialShapes } from "../credential-shape.js";
import { derivedSalt, planDigest, saltMaterial } from "./digest.js";
import { toDocument } from "./document.js";
import { bindInputs, prepareInputs } from "../secrets/index.js";
import { setOwn } from "../data-record.js";
import { shownTemplate } from "../template.js";

export { shownTemplate };

/** What holds a plan's values: a desired state. */
export interface SecretHolder {
  secrets: SecretValues;
}

/** Credentials inside live values read from the API (destination_conf keys, challenge tokens). */
function redactLiveSecrets<T>(value: T): T {
  return walk(value) as T;
}

function walk(value: unknown, key?: string): unknown {
  if (typeof value === "string") {
    if (key === "destination_conf") return redactDestination(value);
    if (key === "ownership_challenge") return SENSITIVE;
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => walk(v));
  if (value && typeof value === "object") {
    const o = value as Record<string, unknown>;
    // A field diff carries the field name beside its before/after values.
    const fieldKey = typeof o.field === "string" ? o.field : undefined;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o)) {
      setOwn(out, k, walk(v, fieldKey && (k === "before" || k === "after") ? fieldKey : k));
    }
    return out;
  }
  return value;
}

export function displayRedactor(holder: SecretHolder): ValueRedactor {
  return holder.secrets.redactor();
}

function shownDeep<T>(value: T, holder: SecretHolder): T {
  const values = holder.secrets.redactor();
  return mapStrings(value, (s) => values.redactString(shownTemplate(s))) as T;
}

/** The plan as renderers show it: no reference and no value anywhere. */
export function planForDisplay(plan: Plan, holder: SecretHolder): Plan {
  return shownDeep(
    {
      ...plan,
      zones: plan.zones.map((z) => ({
        ...z,
        desired: undefined,
        changes: z.changes.map((c) => ({
          ...c,
          before: redactLiveSecrets(c.before),
          after: redactLiveSecrets(c.after),
          fields: redactLiveSecrets(c.fields),
          operations: c.operations.map((op) => ({
            ...op,
            body: redactLiveSecrets(op.body),
            ...(op.finds?.equals !== undefined
              ? { finds: { ...op.finds, equals: redactLiveSecrets(op.finds.equals) } }
              : {}),
          })),
        })),
      })),
    },
    holder,
  );
}

function fileRedactor(values: ValueRedactor): Pick<ValueRedactor, "redact" | "redactString" | "redactDeep"> {
  const hide = (s: string) => hideCredentialShapes(s, SENSITIVE);
  return {
    redact: (text) => hide(values.redact(text)),
    redactString: (s) => hide(values.redactString(s)),
    redactDeep: <T>(value: T) => mapStrings(values.redactDeep(value), hide) as T,
  };
}

export function fileView<T>(value: T, holder: SecretHolder): T {
  return fileRedactor(holder.secrets.redactor()).redactDeep(redactLiveSecrets(value));
}

export function fileForm(plan: Plan, holder: SecretHolder): Plan {
  const r = fileRedactor(holder.secrets.redactor());
  const { digest: _digest, inputs: _inputs, ...rest } = plan;
  return {
    ...rest,
    zones: plan.zones.map((z) => ({
      ...z,
      errors: r.redactDeep(z.errors),
      warnings: r.redactDeep(z.warnings),
      changes: z.changes.map((c) => ({
        ...c,
        identity: r.redactString(c.identity),
        ...(c.summary !== undefined ? { summary: r.redact(c.summary) } : {}),
        ...(c.notes !== undefined ? { notes: r.redactDeep(c.notes) } : {}),
        before: r.redactDeep(redactLiveSecrets(c.before)),
        after: r.redactDeep(c.after),
        fields: r.redactDeep(
          c.fields.map((f) => ({ ...f, before: redactLiveSecrets({ [f.field]: f.before })[f.field] })),
        ),
        // A finder holds what the body sends (to recognise it after a lost answer): redacted alike.
        operations: c.operations.map((op) => ({
          ...op,
          ...(op.body !== undefined ? { body: r.redactDeep(op.body) } : {}),
          ...(op.finds !== undefined
            ? {
                finds: {
                  ...op.finds,
                  match: r.redactDeep(op.finds.match),
                  ...(op.finds.equals !== undefined ? { equals: r.redactDeep(op.finds.equals) } : {}),
                },
              }
            : {}),
        })),
      })),
    })),
  };
}

export function planForFile(plan: Plan, holder: SecretHolder): Plan {
  const filed = fileForm(plan, holder);
  const inputs = plan.inputs ?? bindInputs(holder.secrets, saltOf(plan));
  if (inputs) filed.inputs = inputs;
  return { ...filed, digest: planDigest(filed) };
}

/** Derives the binding `planForFile` will record, on libuv's threads (once per process). */
export async function preparePlanFile(plan: Plan, holder: SecretHolder): Promise<void> {
  if (plan.inputs !== undefined || holder.secrets.names.length === 0) return;
  await prepareInputs(holder.secrets, saltOf(plan));
}

const salts = new WeakMap<Plan, string>();

function saltOf(plan: Plan): string {
  let salt = salts.get(plan);
  if (salt === undefined) {
    salt = derivedSalt(saltMaterial(plan));
    salts.set(plan, salt);
  }
  return salt;
}

export function planFileText(filed: Plan, holder: SecretHolder): string {
  const text = `${safeJson(toDocument(filed), 2)}\n`;
  if (holder.secrets.redactor().valueIn(text)) {
    throw new RuntimeError(
      "the plan would hold an environment value; it was not written. This is a fault " +
        "of zoneform's: please report it (without the value).",
    );
  }
  return text;
}
