// A secret is hidden in every encoding it takes on the way out (issue 34): as it is, URL-encoded, and
// JSON-escaped at any depth (`\"`, `\\`, `\t`, `\u0022`), so that a `${env:…}` value holding a quote, a
// backslash, a tab or a character beyond ASCII cannot leave inside a Logpush filter's JSON, a plan file,
// a SARIF log or a log line.
import { describe, expect, it } from "vitest";
import { Redactor, SENSITIVE } from "../../src/redact.js";

const SECRETS = [
  'Zq"81\\vT\tnR4é"wLx',
  "pl4in-S3cret-Value",
  'q"uote',
  "back\\slash\\x",
  "tab\there-now",
  "ünï\u202ecödé-ß",
];

/** Every way the value can be written: raw, JSON at depth 1 to 3, URL-encoded, mixed, \u-escaped. */
function encodings(v: string): string[] {
  const json = (s: string) => JSON.stringify(s).slice(1, -1);
  const uEscaped = [...v].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
  return [
    v,
    json(v),
    json(json(v)),
    json(json(json(v))),
    encodeURIComponent(v),
    encodeURIComponent(json(v)),
    json(encodeURIComponent(v)),
    new URLSearchParams({ v }).toString().slice(2),
    uEscaped,
    json(uEscaped),
    // Only some characters \u-escaped, as other serializers do (`"` as \u0022, non-ASCII as \u00e9).
    v
      .replace(/["\\]/g, (c) => (c === '"' ? "\\u0022" : "\\u005c"))
      .replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`),
    encodeURIComponent(v).replace(/%[0-9A-F]{2}/g, (p) => p.toLowerCase()),
  ];
}

describe("a secret in any encoding", () => {
  for (const secret of SECRETS) {
    it(`is hidden: ${JSON.stringify(secret)}`, () => {
      const r = new Redactor([{ value: secret }]);
      for (const form of encodings(secret)) {
        const text = `before ${form} after`;
        const out = r.redact(text);
        expect(out, `${JSON.stringify(form)} in ${JSON.stringify(text)}`).toBe(`before ${SENSITIVE} after`);
      }
    });
  }

  it("inside serialized structures: a filter's JSON inside a plan's JSON, in a SARIF-like log", () => {
    const secret = SECRETS[0]!;
    const filter = JSON.stringify({ where: { key: "ClientRequestPath", operator: "eq", value: secret } });
    const plan = JSON.stringify({ body: { filter }, after: `ClientRequestPath eq ${JSON.stringify(secret)}` }, null, 2);
    const log = JSON.stringify({ message: plan });
    const r = new Redactor([{ value: secret }]);
    for (const text of [filter, plan, log]) {
      const out = r.redact(text);
      expect(out).toContain(SENSITIVE);
      for (const piece of ["Zq", "vT", "nR4", "wLx"]) expect(out).not.toContain(piece);
      expect(r.escapedSecretIn(out)).toBeUndefined();
    }
    // The structure stays JSON: the replacement needs no escaping at any depth.
    const parsed = JSON.parse(r.redact(plan)) as { body: { filter: string } };
    expect(JSON.parse(parsed.body.filter).where.value).toBe(SENSITIVE);
  });

  it("puts back the reference of a plan file at any depth", () => {
    const secret = 'a"b\\c\td-long';
    const r = new Redactor([{ value: secret, replacement: "${env:FLAG}" }]);
    const filter = JSON.stringify({ value: secret });
    expect(JSON.parse(JSON.parse(r.redact(JSON.stringify(filter))))).toEqual({ value: "${env:FLAG}" });
  });

  it("escapedSecretIn finds what the last line must never write, and not the value as it is", () => {
    const secret = 'Zq"81\\vT\tnR4';
    const r = new Redactor([{ value: secret, replacement: "${env:S}" }]);
    expect(r.escapedSecretIn(JSON.stringify({ a: secret }))).toBe("${env:S}");
    expect(r.escapedSecretIn(JSON.stringify(JSON.stringify({ a: secret })))).toBe("${env:S}");
    expect(r.escapedSecretIn("Zq\\u002281\\u005cvT\\u0009nR4")).toBe("${env:S}");
    expect(r.escapedSecretIn(JSON.stringify({ a: "${env:S}" }))).toBeUndefined();
    // A plain value (nothing to escape) is for the structural redaction; no escaped form exists.
    expect(new Redactor([{ value: "plain-value-1" }]).escapedSecretIn('"plain-value-1"')).toBeUndefined();
  });

  it("leaves text without the secret as it is, backslashes and percent signs included", () => {
    const r = new Redactor([{ value: 'Zq"81\\vT' }]);
    for (const text of [
      'http.request.uri.path matches "^/api/\\\\d+"',
      "100% sure, 50%25 off, %zz",
      '{"a":"b\\"c\\\\d\\u0041"}',
      "C:\\\\path\\\\Zq",
    ])
      expect(r.redact(text)).toBe(text);
  });

  it("stays fast on a large JSON text with many escapes", () => {
    const r = new Redactor(SECRETS.map((value) => ({ value })));
    const big = JSON.stringify(
      Array.from({ length: 5_000 }, (_, i) => ({ expression: `http.host eq "h${i}.example" and a\\b`, i })),
    );
    // A quadratic decoding would outlast the test's timeout.
    for (let i = 0; i < 5; i++) expect(r.redact(big)).toBe(big);
  });
});
