// The file's one template syntax: `${env:NAME}` is a reference to an environment variable, and `$${`
// is the text `${` (its one escape, wherever it stands). Writing a text with `escapeTemplateText`
// and reading it back gives the text itself, whatever it holds. Pure; no imports.

/** A token of the syntax: `$${` (group 1 undefined), or `${…}` up to the first `}` (group 1 its inside). */
const TEMPLATE_TOKEN = /\$\$\{|\$\{([^}]*)\}/g;

/** The text as the file must write it to be read back as itself: every `${` written `$${`. */
export function escapeTemplateText(text: string): string {
  return text.includes("${") ? text.replace(/\$\{/g, () => "$${") : text;
}

/**
 * Replaces each token: `$${` by `${`, each `${…}` by what `reference(whole, inside)` returns.
 * Reading left to right, so `$$${x}` is `$` then `${x}` read back from `$${` and `x}`.
 */
export function replaceTemplateTokens(text: string, reference: (whole: string, inside: string) => string): string {
  if (!text.includes("${")) return text;
  return text.replace(TEMPLATE_TOKEN, (whole: string, inside: string | undefined) =>
    inside === undefined ? "${" : reference(whole, inside),
  );
}

/** The `${…}` references of a text (escaped ones left out), as [whole, inside] pairs. */
function templateReferences(text: string): Array<[whole: string, inside: string]> {
  const out: Array<[string, string]> = [];
  if (!text.includes("${")) return out;
  for (const m of text.matchAll(TEMPLATE_TOKEN)) if (m[1] !== undefined) out.push([m[0], m[1]]);
  return out;
}

/** True when the text holds at least one `${env:NAME}` reference (not an escaped one). */
export function hasEnvReference(text: string): boolean {
  return templateReferences(text).some(([, inner]) => inner.startsWith("env:"));
}

/** A reference's variable name as the file may write it. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The text in the one canonical spelling of the syntax: each valid `${env:NAME}` kept, everything else
 * literal text escaped, so two templates are equal exactly when they read the same.
 */
export function canonicalTemplate(text: string): string {
  if (!text.includes("${")) return text;
  let out = "";
  let from = 0;
  for (const m of text.matchAll(TEMPLATE_TOKEN)) {
    out += escapeTemplateText(text.slice(from, m.index));
    const inner = m[1];
    const name = inner?.startsWith("env:") ? inner.slice(4) : undefined;
    if (inner === undefined) out += "$${";
    else if (name !== undefined && ENV_NAME.test(name)) out += m[0];
    else out += escapeTemplateText(m[0]);
    from = m.index + m[0].length;
  }
  return out + escapeTemplateText(text.slice(from));
}

/** The variable names a text references, in order of appearance (escaped ones left out). */
export function referencedNames(text: string): string[] {
  return templateReferences(text).flatMap(([, inner]) =>
    inner.startsWith("env:") && ENV_NAME.test(inner.slice(4)) ? [inner.slice(4)] : [],
  );
}

/** `Checkout ${env:FLAG}` as shown: each reference hidden as `(sensitive)`, the rest as written (`$${` is `${`). */
export function shownTemplate(template: string): string {
  return replaceTemplateTokens(template, (whole, inner) => (inner.startsWith("env:") ? "(sensitive)" : whole));
}

/** A reference inside JSON text: its value goes in JSON-escaped (`${env:NAME|json}`, never written by a file). */
const JSON_REFERENCE = /^env:([A-Za-z_][A-Za-z0-9_]*)\|json$/;

/** The variable a reference's inside names and whether it stands inside JSON text; undefined if it is none. */
export function referenceOf(inner: string): { name: string; json: boolean } | undefined {
  if (!inner.startsWith("env:")) return undefined;
  const json = JSON_REFERENCE.exec(inner);
  if (json) return { name: json[1]!, json: true };
  return ENV_NAME.test(inner.slice(4)) ? { name: inner.slice(4), json: false } : undefined;
}

/** JSON text made from strings in template syntax, each reference marked to be put in JSON-escaped. */
export function jsonTemplate(json: string): string {
  if (!json.includes("${")) return json;
  return json.replace(TEMPLATE_TOKEN, (whole: string, inside: string | undefined) =>
    inside !== undefined && referenceOf(inside)?.json === false ? `\${${inside}|json}` : whole,
  );
}
