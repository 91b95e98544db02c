// Secrets in plans. For display (text, Markdown, logs) every secret is `(sensitive)`; in a plan file
// and the JSON plan the values that came from `${env:NAME}` are written back as that reference, so
// apply can re-read them from the environment while the file itself holds no secret.
import type { SecretSource, Plan } from "../model/index.js";
import { RuntimeError } from "../errors.js";
import { Redactor, SENSITIVE, mapStrings, redactDestination } from "../redact.js";
import { safeJson } from "../safe-text.js";
import { hideCredentialShapes } from "../credential-shape.js";
import { derivedSalt, planDigest, saltMaterial } from "./digest.js";
import { bindInputs, prepareInputs } from "./inputs.js";
import { setOwn } from "../data-record.js";
import { replaceTemplateTokens } from "../template.js";

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

/** `Checkout ${env:FLAG}` as shown: each reference hidden, the rest as written (`$${` read as `${`). */
export function shownTemplate(template: string): string {
  return replaceTemplateTokens(template, (whole, inner) => (inner.startsWith("env:") ? SENSITIVE : whole));
}

/**
 * Hides secrets for display: a string the file wrote with references is shown as written with each
 * reference `(sensitive)`; env values are hidden inside other text too (see Redactor for short ones).
 */
export function displayRedactor(source: SecretSource): Redactor {
  const r = new Redactor(source.secrets.map((s) => ({ value: s.value })));
  for (const t of source.templated ?? []) r.addWhole(t.value, shownTemplate(t.template));
  return r;
}

/** Puts references back for a plan file: a templated string becomes its template, an env value its reference. */
export function fileRedactor(source: SecretSource): Redactor {
  const r = new Redactor(source.secrets.map((s) => ({ value: s.value, replacement: `\${env:${s.name}}` })));
  for (const t of source.templated ?? []) r.addWhole(t.value, t.template);
  return r;
}

/**
 * The file redactor, then any credential-shaped string left (src/credential-shape.ts: a token or key
 * that came from neither the environment nor a known secret field) hidden as `(sensitive)`: a saved
 * plan never holds a credential in clear. (`validate` refuses such a value in a file; live values and
 * texts can still carry one.)
 */
export function credentialSafe(r: Redactor): Pick<Redactor, "redact" | "redactString" | "redactDeep"> {
  const hide = (s: string) => hideCredentialShapes(s, SENSITIVE);
  return {
    redact: (text) => hide(r.redact(text)),
    redactString: (s) => hide(r.redactString(s)),
    redactDeep: <T>(value: T) => mapStrings(r.redactDeep(value), hide) as T,
  };
}

/** The plan as renderers show it: no secret anywhere. */
export function planForDisplay(plan: Plan, secrets: SecretSource): Plan {
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
        operations: c.operations.map((op) => ({
          ...op,
          body: redactLiveSecrets(op.body),
          ...(op.finds?.equals !== undefined
            ? { finds: { ...op.finds, equals: redactLiveSecrets(op.finds.equals) } }
            : {}),
        })),
      })),
    })),
  });
}

/**
 * The plan as a plan file holds it, without its bound values and digest: env references instead of
 * values, live secrets hidden. Only what can hold a secret is rewritten (bodies, values, texts): never a
 * zone id, an API path or a fingerprint, so a value that happens to appear in an id cannot corrupt the
 * plan. What a re-plan is compared in (engine/verify.ts), and what the salt is derived from.
 */
export function fileForm(plan: Plan, secrets: SecretSource): Plan {
  const r = credentialSafe(fileRedactor(secrets));
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
 * The plan as written to a file or as JSON: its file form (`fileForm`), the values its references had
 * bound by the KDF (`inputs`, see inputs.ts: a saved plan keeps its own, a plan made now gets them under
 * the salt derived from its content), and its digest. Synchronous: `preparePlanFile` first derives the
 * bound values on other threads, else they are derived here.
 */
export function planForFile(plan: Plan, secrets: SecretSource): Plan {
  const filed = fileForm(plan, secrets);
  const inputs = plan.inputs ?? bindInputs(secrets.secrets, saltOf(plan));
  if (inputs) filed.inputs = inputs;
  return { ...filed, digest: planDigest(filed) };
}

/** Derives the values `planForFile` will bind, all at once on libuv's threads (each once per process). */
export async function preparePlanFile(plan: Plan, secrets: SecretSource): Promise<void> {
  if (plan.inputs !== undefined || secrets.secrets.length === 0) return;
  await prepareInputs(secrets.secrets, saltOf(plan));
}

/** Salts by the plan they were derived for (a plan's desired state is not rewritten by fileForm). */
const salts = new WeakMap<Plan, string>();

/** The salt of a plan's bound values: derived from the desired state it carries (digest.ts), once per plan. */
function saltOf(plan: Plan): string {
  let salt = salts.get(plan);
  if (salt === undefined) {
    salt = derivedSalt(saltMaterial(plan));
    salts.set(plan, salt);
  }
  return salt;
}

/**
 * The text of a plan as a file holds it (planForFile's result): indented JSON, invisible and
 * bidirectional characters as JSON escapes (safeJson). A last check before it is written anywhere: no
 * env value is left in an escaped form (`\"`, `\\`, `\t`, `\u0022`, at any depth), which only a value
 * holding such characters can take, and the structure was redacted for already (planForFile). One left
 * would be a fault of zoneform's: the plan is not written, and the error names the reference only.
 */
export function planFileText(filed: Plan, secrets: SecretSource): string {
  const text = `${safeJson(filed, 2)}\n`;
  const left = fileRedactor(secrets).escapedSecretIn(text);
  if (left !== undefined) {
    throw new RuntimeError(
      `the plan would hold the value of ${left} in an escaped form; it was not written. This is a fault ` +
        `of zoneform's: please report it (without the value).`,
    );
  }
  return text;
}
