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
