// Credential shapes (Cloudflare docs "Token formats", cited in real-answers.md "token formats"): new
// tokens are cfut_ / cfat_ / cfk_ + 40 characters + a checksum; older API tokens 40 characters; older
// global API keys 37–45 lower-case hex. Ids and hashes that look alike must not be taken for them.
import { describe, expect, it } from "vitest";
import { credentialIn, hideCredentialShapes } from "../../../src/credential-shape.js";
import { fileView } from "../../../src/plan/secrets.js";
import { EnvSecrets } from "../../../src/secrets/index.js";

const BODY = "Xy7kP2mQ9vR4tL8nB3cD6fG1hJ5sW0aZ_eU-iO2p";
const PREFIXED = `cfut_${BODY}a1B2c3`;
const TOKEN_40 = "Xy7kP2mQ9vR4tL8nB3cD6fG1hJ5sW0aZ2eU4iO2p";
const HEX_37 = "0123456789abcdef0123456789abcdef01234";
const SHA1 = "da39a3ee5e6b4b0d3255bfef95601890afd80709";

describe("credentialIn", () => {
  it("finds the scannable formats anywhere in a text, with their kind", () => {
    expect(BODY).toHaveLength(40);
    expect(credentialIn(PREFIXED)).toBe("Cloudflare API token (cfut_/cfat_)");
    expect(credentialIn(`deploy with cfat_${BODY}zz9 please`)).toBe("Cloudflare API token (cfut_/cfat_)");
    expect(credentialIn(`cfk_${BODY}00`)).toBe("Cloudflare global API key (cfk_)");
    // Too short a body, or glued to more token characters before: not the format.
    expect(credentialIn(`cfut_${BODY.slice(0, 30)}`)).toBeUndefined();
    expect(credentialIn(`xcfut_${BODY}`)).toBeUndefined();
  });

  it(
    "takes a whole 40-character token anywhere when it mixes cases and digits, else only where a " +
      "credential belongs",
    () => {
      expect(TOKEN_40).toHaveLength(40);
      expect(credentialIn(TOKEN_40)).toBe("Cloudflare API token");
      expect(credentialIn(`Bearer ${TOKEN_40}`)).toBe("Cloudflare API token");
      expect(credentialIn(SHA1)).toBeUndefined();
      expect(credentialIn(SHA1, true)).toBe("Cloudflare API token");
      expect(credentialIn("a".repeat(40))).toBeUndefined();
    },
  );

  it("takes a 37–45-hex global key only where a credential belongs", () => {
    expect(credentialIn(HEX_37)).toBeUndefined();
    expect(credentialIn(HEX_37, true)).toBe("Cloudflare global API key");
    expect(credentialIn("0123456789abcdef".repeat(3), true)).toBeUndefined(); // 48
  });

  it("leaves ids, hashes, UUIDs, URLs and CSP values alone", () => {
    for (const v of [
      "5ababd603b22780302dd8d83498e5172", // zone id, 32 hex
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", // SHA-256
      "234e5416-89bd-44ae-adea-93082b3a88ed", // custom hostname id
      "https://cdnjs.cloudflare.com/ajax/libs/jquery/3.7.1/jquery.min.js",
      "script-src 'self' 'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='",
      'http.request.uri.path contains "/checkout"',
    ]) {
      expect(credentialIn(v, true), v).toBeUndefined();
    }
  });
});

describe("hideCredentialShapes", () => {
  it("hides prefixed tokens, mixed 40-character runs, and token or hex-key query values; nothing else", () => {
    expect(hideCredentialShapes(`token ${PREFIXED} here`, "(sensitive)")).toBe("token (sensitive) here");
    expect(hideCredentialShapes(`Bearer ${TOKEN_40}`, "(sensitive)")).toBe("Bearer (sensitive)");
    expect(hideCredentialShapes(`https://x.example/in?k=${SHA1}&tags=a`, "(sensitive)")).toBe(
      "https://x.example/in?k=(sensitive)&tags=a",
    );
    expect(hideCredentialShapes(`https://x.example/in?k=${HEX_37}`, "(sensitive)")).toBe(
      "https://x.example/in?k=(sensitive)",
    );
    const untouched =
      `zones/5ababd603b22780302dd8d83498e5172 ` +
      `sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 ${SHA1} ` +
      `\${env:CLOUDFLARE_API_TOKEN}`;
    expect(hideCredentialShapes(untouched, "(sensitive)")).toBe(untouched);
  });
});

describe("the plan file's view of live values", () => {
  it("hides a value and any credential shape left, and keeps references", () => {
    const holder = { secrets: new EnvSecrets({ LOG_AUTH: `Bearer ${TOKEN_40}` }, ["LOG_AUTH"]) };
    // A value still in a live text (an encoding templatizing cannot read back) is hidden, never kept.
    expect(fileView({ note: `auth: Bearer ${TOKEN_40}` }, holder)).toEqual({ note: "auth: (sensitive)" });
    // A pasted one (validate refuses it in a file; a live value can still hold one) is hidden.
    expect(fileView({ destination_conf: `https://logs.example/in?header_X=${PREFIXED}`, hash: SHA1 }, holder)).toEqual({
      destination_conf: "https://logs.example/in?header_X=(sensitive)",
      hash: SHA1,
    });
    expect(fileView({ text: `challenge ${PREFIXED}` }, holder)).toEqual({ text: "challenge (sensitive)" });
    expect(fileView({ destination_conf: "https://l.example/in?header_X=${env:LOG_AUTH}" }, holder)).toEqual({
      destination_conf: "https://l.example/in?header_X=${env:LOG_AUTH}",
    });
  });
});
