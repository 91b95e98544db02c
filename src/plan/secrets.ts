// A plan holds references, never values: its strings are in the file's template syntax (src/template.ts),
// live values included (src/secrets templatizes every answer). Shown, each reference is `(sensitive)`;
// written to a file, the plan is kept as it is, with what still looks like a credential hidden.
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

/** What hides a holder's values in outputs (a client's logs, an API message echoing a write). */
export function displayRedactor(holder: SecretHolder): ValueRedactor {
  return holder.secrets.redactor();
}

/** Each string of `value` as shown: references hidden, then any value left hidden (short ones where whole). */
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

/** A file form's redactor: any value left (a short or encoded one in a live value), then credential shapes. */
function fileRedactor(values: ValueRedactor): Pick<ValueRedactor, "redact" | "redactString" | "redactDeep"> {
  const hide = (s: string) => hideCredentialShapes(s, SENSITIVE);
  return {
    redact: (text) => hide(values.redact(text)),
    redactString: (s) => hide(values.redactString(s)),
    redactDeep: <T>(value: T) => mapStrings(values.redactDeep(value), hide) as T,
  };
}

/** A live value as a plan file holds it: credentials hidden (what fingerprints are computed over too). */
export function fileView<T>(value: T, holder: SecretHolder): T {
  return fileRedactor(holder.secrets.redactor()).redactDeep(redactLiveSecrets(value));
}

/**
 * The plan as a plan file holds it, without its bound values and digest: live credentials hidden. Only
 * what can hold a secret is rewritten (bodies, values, texts): never a zone id, an API path or a
 * fingerprint. What a re-plan is compared in (engine/verify.ts), and what the salt is derived from.
 */
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

/**
 * The plan as written to a file or as JSON: its file form, the values its references had bound by the
 * KDF (a saved plan keeps its own; a plan made now gets them under the salt derived from its content),
 * and its digest. Synchronous: `preparePlanFile` first derives the binding on other threads.
 */
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

/** Salts by the plan they were derived for (a plan's desired state is not rewritten by fileForm). */
const salts = new WeakMap<Plan, string>();

function saltOf(plan: Plan): string {
  let salt = salts.get(plan);
  if (salt === undefined) {
    salt = derivedSalt(saltMaterial(plan));
    salts.set(plan, salt);
  }
  return salt;
}

/**
 * The text of a plan as a file holds it: indented JSON, invisible characters escaped. A last check: no
 * value is left in any encoding; one left would be a fault of zoneform's, and the plan is not written.
 */
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
