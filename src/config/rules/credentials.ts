// A Cloudflare credential pasted into the file instead of `${env:NAME}`: any string value shaped like
// one (src/credential-shape.ts: prefixed cfut_/cfat_/cfk_ tokens anywhere; 40-character tokens and
// 37–45-hex global keys where a credential belongs, or when unmistakable) is an error at its line.
// The references themselves are not looked into: `${env:CLOUDFLARE_API_TOKEN}` is what the file should say.
// Literal secret parameters of a Logpush destination and a literal ownership_challenge are reported
// by the logpush section's rules already (by name, whatever their shape): not twice here.
import { credentialIn, isCredentialName } from "../../credential-shape.js";
import { safeDecode } from "../../redact.js";
import { replaceTemplateTokens } from "../../template.js";
import { literalSecretParams } from "../../sections/logpush/index.js";
import { childPointer, type Finding, type Rule } from "../../sections/rules.js";

function message(kind: string): string {
  return (
    `this value looks like a ${kind} written in the file: move it into an environment variable and ` +
    `reference it as \${env:NAME} (plan files keep only the reference; then revoke or roll the ` +
    `credential if the file was shared)`
  );
}

/** The text as written with each `${…}` reference blanked (a reference is never a credential). */
function withoutReferences(text: string): string {
  return replaceTemplateTokens(text, () => " ");
}

/** The first credential in a Logpush destination's parameters (other than those named secret) or path. */
function inDestination(destination: string): ReturnType<typeof credentialIn> {
  const flagged = new Set(literalSecretParams(destination));
  const q = destination.indexOf("?");
  const head = q < 0 ? destination : destination.slice(0, q);
  for (const seg of head.split("/")) {
    const kind = credentialIn(safeDecode(seg), true);
    if (kind) return kind;
  }
  if (q < 0) return undefined;
  for (const pair of destination.slice(q + 1).split("&")) {
    const eq = pair.indexOf("=");
    const name = safeDecode(eq < 0 ? pair : pair.slice(0, eq));
    if (eq < 0 || flagged.has(name)) continue;
    const kind = credentialIn(safeDecode(pair.slice(eq + 1)), true);
    if (kind) return kind;
  }
  return undefined;
}

export const credentialsInFile: Rule = (doc, ctx) => {
  const findings: Finding[] = [];
  const visit = (value: unknown, pointer: string, key: string | undefined): void => {
    if (typeof value === "string") {
      if (key === "ownership_challenge") return;
      const text = withoutReferences(ctx.template(pointer) ?? value);
      const kind =
        key === "destination_conf"
          ? inDestination(text)
          : credentialIn(text, key !== undefined && isCredentialName(key));
      if (kind) findings.push({ pointer, message: message(kind) });
      return;
    }
    if (Array.isArray(value)) {
      value.forEach((v, i) => {
        visit(v, childPointer(pointer, i), key);
      });
      return;
    }
    if (value !== null && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) visit(v, childPointer(pointer, k), k);
    }
  };
  visit(doc, "", undefined);
  return findings;
};
