// The file's one template syntax: `${env:NAME}` is a reference to an environment variable, and `${` is the text
// `${` (its one escape, wherever it stands).

const TEMPLATE_TOKEN = /\$\$\{|\$\{([^}]*)\}/g;

export function escapeTemplateText(text: string): string {
  return text.includes("${") ? text.replace(/\$\{/g, () => "$${") : text;
}

/** Replaces each token: `$${` by `${`, each `${…}` by what `reference(whole, inside)` returns. */
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

export function shownTemplate(template: string): string {
  return replaceTemplateTokens(template, (whole, inner) => (inner.startsWith("env:") ? "(sensitive)" : whole));
}

const JSON_REFERENCE = /^env:([A-Za-z_][A-Za-z0-9_]*)\|json$/;

export function referenceOf(inner: string): { name: string; json: boolean } | undefined {
  if (!inner.startsWith("env:")) return undefined;
  const json = JSON_REFERENCE.exec(inner);
  if (json) return { name: json[1]!, json: true };
  return ENV_NAME.test(inner.slice(4)) ? { name: inner.slice(4), json: false } : undefined;
}

export function jsonTemplate(json: string): string {
  if (!json.includes("${")) return json;
  return json.replace(TEMPLATE_TOKEN, (whole: string, inside: string | undefined) =>
    inside !== undefined && referenceOf(inside)?.json === false ? `\${${inside}|json}` : whole,
  );
}
