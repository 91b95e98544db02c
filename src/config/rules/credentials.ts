// A Cloudflare credential pasted into the file instead of `${env:NAME}` is an error at its line.
// Spec: docs/secrets.md.
import {
  credentialIn,
  destinationCredentials,
  isCredentialName,
  type DestinationCredential,
} from "../../credential-shape.js";
import { safeDecode } from "../../redact.js";
import { replaceTemplateTokens } from "../../template.js";
import { literalSecretParams, childPointer, type Finding, type Rule } from "../../sections/index.js";

function message(kind: string): string {
  return (
    `this value looks like a ${kind} written in the file: move it into an environment variable and ` +
    `reference it as \${env:NAME} (plan files keep only the reference; then revoke or roll the ` +
    `credential if the file was shared)`
  );
}

function withoutReferences(text: string): string {
  return replaceTemplateTokens(text, () => " ");
}

/** What to say of a credential a destination carries literally (src/credential-shape.ts destinationCredentials). */
function destinationMessage(part: DestinationCredential): string {
  const fix =
    "so that it comes from the environment (plan files keep only the reference; then revoke or roll the " +
    "credential if the file was shared)";
  switch (part.kind) {
    case "userinfo":
      return (
        "this destination's user info (the `user:password@` before its host) is a credential written in the " +
        `file: write it as \${env:NAME}@ ${fix}`
      );
    case "password":
      return `the password in this destination's user info is written in the file: use user:\${env:NAME}@ ${fix}`;
    case "path":
      return (
        `path segment ${part.name} of this destination looks like a token written in the file: write that ` +
        `segment as \${env:NAME} ${fix}`
      );
    default:
      return (
        `the value of the destination's parameter '${part.name}' looks like a credential written in the file: ` +
        `use ${part.name}=\${env:NAME} ${fix}`
      );
  }
}

function inDestination(written: string): string | undefined {
  const flagged = new Set(literalSecretParams(written));
  for (const part of destinationCredentials(written)) {
    const text = written.slice(part.start, part.end);
    if (text.includes("${") || (part.kind === "param" && flagged.has(part.name))) continue;
    const kind = credentialIn(safeDecode(text), true);
    return kind ? message(kind) : destinationMessage(part);
  }
  const plain = withoutReferences(written);
  const q = plain.indexOf("?");
  for (const seg of (q < 0 ? plain : plain.slice(0, q)).split("/")) {
    const kind = credentialIn(safeDecode(seg), true);
    if (kind) return message(kind);
  }
  if (q < 0) return undefined;
  for (const pair of plain.slice(q + 1).split("&")) {
    const eq = pair.indexOf("=");
    const name = safeDecode(eq < 0 ? pair : pair.slice(0, eq));
    if (eq < 0 || flagged.has(name)) continue;
    const kind = credentialIn(safeDecode(pair.slice(eq + 1)), true);
    if (kind) return message(kind);
  }
  return undefined;
}

export const credentialsInFile: Rule = (doc, ctx) => {
  const findings: Finding[] = [];
  const visit = (value: unknown, pointer: string, key: string | undefined): void => {
    if (typeof value === "string") {
      if (key === "ownership_challenge") return;
      const written = ctx.template(pointer) ?? value;
      if (key === "destination_conf") {
        const problem = inDestination(written);
        if (problem) findings.push({ pointer, message: problem });
        return;
      }
      const kind = credentialIn(withoutReferences(written), key !== undefined && isCredentialName(key));
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
