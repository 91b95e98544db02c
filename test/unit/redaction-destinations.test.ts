// Credentials in destinations (issue 34): the one detector (src/credential-shape.ts
// destinationCredentials) knows a URL's user info, credential parameters by name (`pass`, `password`,
// `code` of Azure Functions, `sig`, `p`, `token`, `secret`, `key`, …) or by shape, a URL carrying one
// inside a parameter (an Azure SAS URL), and token-shaped path segments (base64url runs, long hex). The
// same detector hides them when shown, turns them into `${env:…}` references in `export`, and makes
// `validate` refuse them written literally, naming the line and the fix.
import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../src/config/index.js";
import { destinationCredentials, isCredentialParam, isTokenSegment } from "../../src/credential-shape.js";
import { ConfigError } from "../../src/errors.js";
import { newNotes } from "../../src/export/types.js";
import { Redactor, redactDestination, redactUrlParams } from "../../src/redact.js";
import { destinationWithEnvRefs } from "../../src/sections/logpush_jobs/export.js";

const Z = "0123456789abcdef0123456789abcdef";
const HEX_TOKEN = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
const B64 = "Ab3dEf6hIj9kLm2nOp5qRs8t";
const SAS = encodeURIComponent(`https://acct.blob.core.windows.net/logs?sp=rw&sv=2022-11-02&sig=${B64}%3D`);

/** The credential parts of a destination, as `kind name=value`. */
function parts(destination: string): string[] {
  return destinationCredentials(destination).map((p) => `${p.kind} ${p.name}=${destination.slice(p.start, p.end)}`);
}

describe("destinationCredentials", () => {
  it("finds user info: the password after a plain user, the whole when the user is a token or alone", () => {
    expect(parts("https://logger:hunter2@logs.example.com/in?x=1")).toEqual(["password password=hunter2"]);
    expect(parts(`https://${B64}@logs.example.com/in`)).toEqual([`userinfo userinfo=${B64}`]);
    expect(parts(`https://${B64}:x-oauth@logs.example.com/in`)).toEqual([`userinfo userinfo=${B64}:x-oauth`]);
    expect(parts("https://deploy@logs.example.com/in")).toEqual(["userinfo userinfo=deploy"]);
    // An @ in the path or query is not user info.
    expect(parts("https://logs.example.com/in/a@b?to=ops@example.com")).toEqual([]);
  });

  it("finds credential parameters by name, whatever their value, and token-shaped values by shape", () => {
    for (const name of ["pass", "password", "passwd", "pwd", "code", "sig", "signature", "p", "token", "secret"])
      expect(isCredentialParam(name), name).toBe(true);
    for (const name of ["key", "api-key", "apikey", "access-key-id", "header_Authorization", "header_DD-API-KEY"])
      expect(isCredentialParam(name), name).toBe(true);
    for (const name of ["region", "channel", "ddsource", "sourcetype", "format", "account-id", "tags", "compress"])
      expect(isCredentialParam(name), name).toBe(false);
    expect(parts("https://fn.azurewebsites.net/api/ingest?code=abc123==&clientId=default")).toEqual([
      "param code=abc123==",
    ]);
    expect(parts("https://h.example/in?p=s3cret&u=me&token=t&tags=a")).toEqual(["param p=s3cret", "param token=t"]);
    expect(parts(`https://h.example/in?t=${B64}&region=eu`)).toEqual([`param t=${B64}`]);
    // A parameter whose value is a URL carrying a credential (an Azure SAS URL): the whole value.
    expect(parts(`azure://logs/{DATE}?blob-container-url=${SAS}`)).toEqual([`param blob-container-url=${SAS}`]);
    // Empty values carry nothing.
    expect(parts("https://h.example/in?password=&code=")).toEqual([]);
  });

  it("finds token-shaped path segments: base64url runs and long hex; not dates, buckets or UUIDs", () => {
    expect(isTokenSegment(HEX_TOKEN)).toBe(true);
    expect(isTokenSegment(B64)).toBe(true);
    for (const seg of ["{DATE}", "http_requests", "logs-2024", "234e5416-89bd-44ae-adea-93082b3a88ed", "v2"])
      expect(isTokenSegment(seg), seg).toBe(false);
    expect(parts(`https://hooks.example.com/services/${HEX_TOKEN}/in`)).toEqual([`path 2=${HEX_TOKEN}`]);
    expect(parts(`sumo://endpoint1.collection.sumologic.com/receiver/v1/http/${B64}`)).toEqual([`path 4=${B64}`]);
    // The bucket of s3://, gs://, r2:// is the authority, never a path token.
    expect(parts("s3://my-logs/http/{DATE}?region=us-east-1")).toEqual([]);
  });
});

describe("shown to people", () => {
  it("every credential part is (sensitive); scheme, host, bucket, path and region stay", () => {
    expect(redactDestination("https://logger:hunter2@logs.example.com/in?region=eu&code=abc123")).toBe(
      "https://logger:(sensitive)@logs.example.com/in?region=eu&code=(sensitive)",
    );
    expect(redactDestination(`https://hooks.example.com/services/${HEX_TOKEN}?p=x&pass=y`)).toBe(
      "https://hooks.example.com/services/(sensitive)?p=(sensitive)&pass=(sensitive)",
    );
    expect(redactDestination(`azure://logs/{DATE}?blob-container-url=${SAS}`)).toBe(
      "azure://logs/{DATE}?blob-container-url=(sensitive)",
    );
    // References stay references.
    expect(redactDestination("https://${env:U}:${env:P}@h.example/in?code=${env:C}")).toBe(
      "https://${env:U}:${env:P}@h.example/in?code=${env:C}",
    );
  });

  it("in free text (an API error echoing a URL): user info and credential parameters hidden", () => {
    expect(redactUrlParams("POST https://a:b@h.example/in?code=zz9&x=1 failed")).toBe(
      "POST https://(sensitive)@h.example/in?code=(sensitive)&x=1 failed",
    );
    expect(new Redactor().redact("to https://u:pw@h.example/x")).toBe("to https://(sensitive)@h.example/x");
  });
});

describe("export", () => {
  it("writes each credential part as an env reference and says which variable to set", () => {
    const ctx = { read: {} as never, zoneId: Z, notes: newNotes() };
    const live = `https://logger:hunter2@fn.azurewebsites.net/api/${HEX_TOKEN}?code=abc123==&p=x&region=eu`;
    expect(destinationWithEnvRefs(live, ctx, "fn")).toBe(
      "https://logger:${env:ZONEFORM_FN_PASSWORD}@fn.azurewebsites.net/api/${env:ZONEFORM_FN_PATH_1}" +
        "?code=${env:ZONEFORM_FN_CODE}&p=${env:ZONEFORM_FN_P}&region=eu",
    );
    expect(ctx.notes.env.map((e) => [e.name, e.purpose])).toEqual([
      ["ZONEFORM_FN_PASSWORD", "logpush job fn: the password in destination_conf's user info"],
      ["ZONEFORM_FN_PATH_1", "logpush job fn: a secret path segment of destination_conf"],
      ["ZONEFORM_FN_CODE", "logpush job fn: the code parameter of destination_conf"],
      ["ZONEFORM_FN_P", "logpush job fn: the p parameter of destination_conf"],
    ]);
    const token = { read: {} as never, zoneId: Z, notes: newNotes() };
    expect(destinationWithEnvRefs(`https://${B64}@h.example/in?x=$\{y}`, token, "t")).toBe(
      "https://${env:ZONEFORM_T_USERINFO}@h.example/in?x=$${y}",
    );
  });
});

/** The problems `validate` reports for a job with this destination (as written in YAML, quoted). */
function problems(destination: string, env: Record<string, string> = {}): string[] {
  const yaml =
    `version: 1\nzones:\n  - zone_id: ${Z}\n    logs:\n      logpush_jobs:\n        - name: j\n` +
    `          dataset: http_requests\n          destination_conf: "${destination}"\n`;
  try {
    parseConfigText(yaml, "z.yaml", env);
    return [];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.problems.map((p) => `${p.line} ${p.message}`);
  }
}

describe("validate", () => {
  it("refuses each credential written literally, at its line, saying how to write it; never echoing it", () => {
    const user = problems("https://logger:hunter2@logs.example.com/in");
    expect(user).toEqual([
      "8 the password in this destination's user info is written in the file: use user:${env:NAME}@ so that " +
        "it comes from the environment (plan files keep only the reference; then revoke or roll the credential " +
        "if the file was shared)",
    ]);
    expect(problems(`https://${B64}@logs.example.com/in`)[0]).toMatch(
      /^8 this destination's user info \(the `user:password@` before its host\) is a credential written in the file: write it as \$\{env:NAME\}@/,
    );
    for (const name of ["code", "pass", "p", "sig"])
      expect(problems(`https://h.example/in?${name}=zz9`), name).toEqual([
        `8 the credential '${name}' is written literally: use ${name}=\${env:NAME} so that it comes from the ` +
          "environment (plan files keep only the reference)",
      ]);
    expect(problems(`https://hooks.example.com/services/${HEX_TOKEN}`)[0]).toMatch(
      /^8 path segment 2 of this destination looks like a token written in the file: write that segment as \$\{env:NAME\}/,
    );
    expect(problems(`https://h.example/in?t=${B64}`)[0]).toMatch(
      /^8 the value of the destination's parameter 't' looks like a credential written in the file: use t=\$\{env:NAME\}/,
    );
    for (const d of [
      "https://logger:hunter2@l.example/in",
      `https://h.example/${HEX_TOKEN}`,
      `https://h.example/?t=${B64}`,
    ])
      for (const p of problems(d)) expect(p).not.toMatch(/hunter2|9f86d0|Ab3dEf/);
  });

  it("accepts the same destination with references", () => {
    const env = { U: "logger", P: "hunter2", T: HEX_TOKEN, C: "abc123" };
    expect(problems("https://${env:U}:${env:P}@logs.example.com/in/${env:T}?code=${env:C}", env)).toEqual([]);
    expect(problems("https://logger:${env:P}@logs.example.com/in?region=eu", env)).toEqual([]);
    expect(
      problems("s3://my-logs/http/{DATE}?region=us-east-1&access-key-id=${env:U}&secret-access-key=${env:P}", env),
    ).toEqual([]);
  });
});
