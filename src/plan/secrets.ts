// Secrets in plans. For display (text, Markdown, logs) every secret is `(sensitive)`; in a plan file
// and the JSON plan the values that came from `${env:NAME}` are written back as that reference, so
// apply can re-read them from the environment while the file itself holds no secret.
import type { SecretRef } from "../model/desired.js";
import type { Plan } from "../model/plan.js";
import { Redactor, SENSITIVE, redactDestination } from "../redact.js";

/** Credentials inside live values read from the API (destination_conf keys, challenge tokens). */
export function redactLiveSecrets<T>(value: T): T {
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
      out[k] = walk(v, fieldKey && (k === "before" || k === "after") ? fieldKey : k);
    }
    return out;
  }
  return value;
}

export function displayRedactor(secrets: SecretRef[]): Redactor {
  return new Redactor(secrets.map((s) => ({ value: s.value })));
}

export function fileRedactor(secrets: SecretRef[]): Redactor {
  return new Redactor(secrets.map((s) => ({ value: s.value, replacement: `\${env:${s.name}}` })));
}

/** The plan as renderers show it: no secret anywhere. */
export function planForDisplay(plan: Plan, secrets: SecretRef[]): Plan {
  const r = displayRedactor(secrets);
  return r.redactDeep({
    ...plan,
    zones: plan.zones.map((z) => ({
      ...z,
      desired: undefined,
      changes: z.changes.map((c) => ({
        ...c,
        before: redactLiveSecrets(c.before),
        after: redactLiveSecrets(c.after),
        fields: redactLiveSecrets(c.fields),
        operations: c.operations.map((op) => ({ ...op, body: redactLiveSecrets(op.body) })),
      })),
    })),
  });
}

/** The plan as written to a file or as JSON: env references instead of values, live secrets hidden. */
export function planForFile(plan: Plan, secrets: SecretRef[]): Plan {
  const r = fileRedactor(secrets);
  return r.redactDeep({
    ...plan,
    zones: plan.zones.map((z) => ({
      ...z,
      changes: z.changes.map((c) => ({
        ...c,
        before: redactLiveSecrets(c.before),
        fields: c.fields.map((f) => ({ ...f, before: redactLiveSecrets({ [f.field]: f.before })[f.field] })),
      })),
    })),
  });
}
