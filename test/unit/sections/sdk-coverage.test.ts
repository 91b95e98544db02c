// Every field and value the official SDK (the `cloudflare` package, node_modules/cloudflare, read by
// test/helpers/sdk-declarations.ts) documents for the objects zoneform models has a key in the
// published schema (schemas/zoneform.schema.json), or is listed below with the reason it is not
// modeled or is refused. A field or value Cloudflare adds in a later SDK fails this test before a user
// meets it; an entry the SDK no longer declares fails it too, so the lists never rot. And every key
// of the schema's objects is either what an SDK field maps to, or zoneform's own, with its reason.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SETTINGS_WRITABLE, SSL_WRITABLE } from "../../../src/sections/custom_hostnames/live.js";
import { sdkFields, sdkVersion, type SdkField } from "../../helpers/sdk-declarations.js";

const SCHEMA = JSON.parse(
  readFileSync(join(import.meta.dirname, "../../../schemas/zoneform.schema.json"), "utf8"),
) as Record<string, unknown>;

/** What zoneform does with one field the SDK declares. */
type Disposition =
  /** Modeled: the schema key(s) (JSON pointers into the published schema) that state it. */
  | { key: string | string[] }
  /** In the schema, but `validate` refuses it (with what to write instead). */
  | { refused: string; key: string }
  /** Not a key of the file, for this reason. */
  | { notModeled: string }
  /** Not a key of the file; a PATCH carries the live value back (checked against the section's list). */
  | { carried: string }
  /** A path parameter, not a body field. */
  | "path";

interface EnumCheck {
  /** The schema key whose `enum` (or `pattern`, for an open set) must hold the SDK's values. */
  key: string;
  /** SDK values the schema leaves out, each with the reason. */
  refused?: Record<string, string>;
  /** Values the schema holds beyond the SDK's, each with the reason. */
  extra?: Record<string, string>;
}

interface Coverage {
  /** The SDK file (under resources/) and the interfaces (dotted through namespaces) whose fields are read. */
  file: string;
  interfaces: string[];
  fields: Record<string, Disposition>;
  enums?: Record<string, EnumCheck>;
  /** For `carried` fields: the list of what the section's PATCH carries back. */
  carries?: readonly string[];
}

const WHY = {
  path: "path",
  keptRule: "kept as the live rule has it: a PATCH sends the whole rule, built from the live one",
  keptSsl: "kept as the live hostname has it: every PATCH carries the live value back",
  uploaded:
    "uploaded certificates are not managed: a hostname serving one is left as it is (a CA or method the file " +
    "names for it stops the zone)",
} as const;

const COVERAGE: Record<string, Coverage> = {
  "Page Shield settings": {
    file: "page-shield/page-shield.d.ts",
    interfaces: ["PageShieldUpdateParams"],
    fields: {
      zone_id: "path",
      enabled: { key: "/$defs/pageShield/properties/enabled" },
      use_cloudflare_reporting_endpoint: { key: "/$defs/pageShield/properties/use_cloudflare_reporting_endpoint" },
      use_connection_url_path: { key: "/$defs/pageShield/properties/use_connection_url_path" },
    },
  },
  "Page Shield policies (content security rules)": {
    file: "page-shield/policies.d.ts",
    interfaces: ["PolicyCreateParams", "PolicyUpdateParams"],
    fields: {
      zone_id: "path",
      action: { key: "/$defs/policy/properties/action" },
      description: { key: "/$defs/policy/properties/description" },
      enabled: { key: "/$defs/policy/properties/enabled" },
      expression: { key: "/$defs/policy/properties/expression" },
      value: { key: "/$defs/policy/properties/value" },
    },
    enums: { action: { key: "/$defs/policy/properties/action" } },
  },
  "Logpush job": {
    file: "logpush/jobs.d.ts",
    interfaces: ["JobCreateParams", "JobUpdateParams"],
    fields: {
      zone_id: "path",
      account_id: { notModeled: "account-level jobs: zoneform manages the jobs of the zones a file lists" },
      dataset: { key: "/$defs/logpushJob/properties/dataset" },
      destination_conf: { key: "/$defs/logpushJob/properties/destination_conf" },
      enabled: { key: "/$defs/logpushJob/properties/enabled" },
      filter: { key: "/$defs/logpushJob/properties/filter" },
      filter_attack_traffic: { key: "/$defs/logpushJob/properties/filter_attack_traffic" },
      frequency: {
        refused: "deprecated by Cloudflare (use max_upload_*): validate says which max_upload_* to write",
        key: "/$defs/logpushJob/properties/frequency",
      },
      kind: { key: "/$defs/logpushJob/properties/kind" },
      logpull_options: {
        refused: "deprecated by Cloudflare (use output_options): validate writes the output_options it means",
        key: "/$defs/logpushJob/properties/logpull_options",
      },
      max_upload_bytes: { key: "/$defs/logpushJob/properties/max_upload_bytes" },
      max_upload_interval_seconds: { key: "/$defs/logpushJob/properties/max_upload_interval_seconds" },
      max_upload_records: { key: "/$defs/logpushJob/properties/max_upload_records" },
      name: { key: "/$defs/logpushJob/properties/name" },
      output_options: { key: "/$defs/logpushJob/properties/output_options" },
      ownership_challenge: { key: "/$defs/logpushJob/properties/ownership_challenge" },
    },
    enums: {
      // Datasets are an open set (real-answers.md): the schema takes any name of their form.
      dataset: { key: "/$defs/logpushJob/properties/dataset" },
      kind: { key: "/$defs/logpushJob/properties/kind" },
      frequency: {
        key: "/$defs/logpushJob/properties/frequency",
      },
    },
  },
  "Logpush output_options": {
    file: "logpush/jobs.d.ts",
    interfaces: ["OutputOptionsParam"],
    fields: Object.fromEntries(
      [
        "batch_prefix",
        "batch_suffix",
        "CVE-2021-44228",
        "field_delimiter",
        "field_names",
        "merge_subrequests",
        "output_type",
        "record_delimiter",
        "record_prefix",
        "record_suffix",
        "record_template",
        "sample_rate",
        "timestamp_format",
      ].map((k) => [k, { key: `/$defs/outputOptions/properties/${k}` }]),
    ),
    enums: {
      output_type: { key: "/$defs/outputOptions/properties/output_type" },
      timestamp_format: { key: "/$defs/outputOptions/properties/timestamp_format" },
    },
  },
  "custom hostname (edit)": {
    file: "custom-hostnames/custom-hostnames.d.ts",
    interfaces: ["CustomHostnameEditParams"],
    fields: {
      zone_id: "path",
      custom_metadata: { notModeled: "per-customer metadata of SSL for SaaS, not security configuration" },
      custom_origin_server: { notModeled: "where the hostname's traffic goes, not its certificate" },
      custom_origin_sni: { notModeled: "the SNI sent to that origin, not the hostname's certificate" },
      ssl: { key: "/$defs/customHostname" },
    },
  },
  "custom hostname ssl": {
    file: "custom-hostnames/custom-hostnames.d.ts",
    interfaces: ["CustomHostnameEditParams.SSL"],
    carries: SSL_WRITABLE,
    fields: {
      bundle_method: { carried: WHY.keptSsl },
      certificate_authority: { key: "/$defs/customHostname/properties/certificate_authority" },
      cloudflare_branding: { carried: WHY.keptSsl },
      custom_cert_bundle: { notModeled: WHY.uploaded },
      custom_certificate: { notModeled: WHY.uploaded },
      custom_csr_id: { notModeled: WHY.uploaded },
      custom_key: { notModeled: WHY.uploaded },
      method: { key: "/$defs/customHostname/properties/method" },
      settings: { carried: WHY.keptSsl },
      // dv is the one value the API takes: zoneform sends it with every change, never asks for it.
      type: { carried: "dv, the only certificate type the API takes: sent with every PATCH" },
      wildcard: { carried: WHY.keptSsl },
    },
    enums: {
      certificate_authority: {
        key: "/$defs/customHostname/properties/certificate_authority",
        refused: {
          digicert:
            "Cloudflare no longer issues from DigiCert (no new orders or renewals since 2023-10-26): validate " +
            "refuses it, and a live hostname on it is moved off by plan",
        },
        extra: { "": "the service's default: Cloudflare picks the CA (the API takes it as the empty string)" },
      },
      method: { key: "/$defs/customHostname/properties/method" },
    },
  },
  "custom hostname ssl.settings": {
    file: "custom-hostnames/custom-hostnames.d.ts",
    interfaces: ["CustomHostnameEditParams.SSL.Settings"],
    carries: SETTINGS_WRITABLE,
    fields: {
      ciphers: { carried: WHY.keptSsl },
      early_hints: { carried: WHY.keptSsl },
      http2: { carried: WHY.keptSsl },
      min_tls_version: { carried: WHY.keptSsl },
      tls_1_3: { carried: WHY.keptSsl },
    },
  },
  "managed ruleset execute rule (OWASP, Cloudflare Managed)": {
    file: "rulesets/rules.d.ts",
    interfaces: ["ExecuteRuleParam"],
    fields: {
      id: { notModeled: "the live rule's id: how zoneform finds it again, never written" },
      action: { notModeled: "execute: what a rule deploying a managed ruleset is" },
      action_parameters: { key: ["/$defs/waf/properties/owasp", "/$defs/waf/properties/cloudflare_managed"] },
      description: { notModeled: WHY.keptRule },
      enabled: { key: ["/$defs/owasp/properties/enabled", "/$defs/cloudflareManaged/properties/enabled"] },
      exposed_credential_check: {
        notModeled: "for the Exposed Credentials Check ruleset, which zoneform does not deploy; kept",
      },
      expression: { key: ["/$defs/owasp/properties/expression", "/$defs/cloudflareManaged/properties/expression"] },
      logging: { notModeled: WHY.keptRule },
      ratelimit: { notModeled: "rate limiting rules, not a managed ruleset's deployment; kept" },
      ref: { notModeled: WHY.keptRule },
    },
  },
  "execute rule action_parameters": {
    file: "rulesets/rules.d.ts",
    interfaces: ["ExecuteRuleParam.ActionParameters"],
    fields: {
      // The section key says which managed ruleset: owasp or cloudflare_managed.
      id: { key: ["/$defs/waf/properties/owasp", "/$defs/waf/properties/cloudflare_managed"] },
      matched_data: { notModeled: `payload logging, keyed by the user's own public key; ${WHY.keptRule}` },
      overrides: { key: ["/$defs/owasp", "/$defs/cloudflareManaged"] },
    },
  },
  "execute rule overrides": {
    file: "rulesets/rules.d.ts",
    interfaces: ["ExecuteRuleParam.ActionParameters.Overrides"],
    fields: {
      action: { key: "/$defs/cloudflareManaged/properties/action" },
      categories: { key: "/$defs/owasp/properties/paranoia_level" },
      enabled: { notModeled: WHY.keptRule },
      rules: { key: ["/$defs/owasp/properties/score_threshold", "/$defs/owasp/properties/action"] },
      sensitivity_level: { notModeled: `sensitivity of DDoS-style rulesets; ${WHY.keptRule}` },
    },
  },
  "execute rule category override": {
    file: "rulesets/rules.d.ts",
    interfaces: ["ExecuteRuleParam.ActionParameters.Overrides.Category"],
    fields: {
      category: { key: "/$defs/owasp/properties/paranoia_level" },
      enabled: { key: "/$defs/owasp/properties/paranoia_level" },
      action: { notModeled: `an action on a category does not change what OWASP does; ${WHY.keptRule}` },
      sensitivity_level: { notModeled: WHY.keptRule },
    },
  },
  "execute rule rule override": {
    file: "rulesets/rules.d.ts",
    interfaces: ["ExecuteRuleParam.ActionParameters.Overrides.Rule"],
    fields: {
      id: { key: ["/$defs/owasp/properties/score_threshold", "/$defs/owasp/properties/action"] },
      action: { key: "/$defs/owasp/properties/action" },
      score_threshold: { key: "/$defs/owasp/properties/score_threshold" },
      enabled: { notModeled: `a rule turned off for a false positive; ${WHY.keptRule}` },
      sensitivity_level: { notModeled: WHY.keptRule },
    },
  },
  "custom log fields (log_custom_field action_parameters)": {
    file: "rulesets/rules.d.ts",
    interfaces: ["LogCustomFieldRuleParam.ActionParameters"],
    fields: {
      cookie_fields: { key: "/$defs/customFields/properties/cookies" },
      raw_response_fields: { key: "/$defs/customFields/properties/raw_response_headers" },
      request_fields: { key: "/$defs/customFields/properties/request_headers" },
      response_fields: { key: "/$defs/customFields/properties/response_headers" },
      transformed_request_fields: { key: "/$defs/customFields/properties/transformed_request_headers" },
    },
  },
  "custom log field items": {
    file: "rulesets/rules.d.ts",
    interfaces: [
      "LogCustomFieldRuleParam.ActionParameters.CookieField",
      "LogCustomFieldRuleParam.ActionParameters.RequestField",
      "LogCustomFieldRuleParam.ActionParameters.TransformedRequestField",
      "LogCustomFieldRuleParam.ActionParameters.ResponseField",
      "LogCustomFieldRuleParam.ActionParameters.RawResponseField",
    ],
    fields: {
      name: { key: ["/$defs/fieldName", "/$defs/responseField/anyOf/1/properties/name"] },
      preserve_duplicates: { key: "/$defs/responseField/anyOf/1/properties/preserve_duplicates" },
    },
  },
};

/**
 * Keys of the schema's objects that no SDK field maps to: zoneform's own, with what they are. Every
 * property of these definitions must be the target of an SDK field above or listed here.
 */
const ZONEFORM_OWN: Record<string, Record<string, string>> = {
  "/$defs/pageShield": {
    policies: "the list of policies (each one an SDK policy, above)",
    prune: "whether live policies the file does not list are deleted",
    script_inventory: "the PCI DSS script inventory, read by audit, never written to Cloudflare",
  },
  "/$defs/policy": { id: "the live policy's id, pinning the entry when descriptions repeat" },
  "/$defs/logpushJob": { id: "the live job's id, pinning the entry when names and datasets repeat" },
  "/$defs/outputOptions": {},
  "/$defs/customHostname": { hostname: "which existing hostname: matched, never written" },
  "/$defs/owasp": {},
  "/$defs/cloudflareManaged": {},
  "/$defs/customFields": {},
};

/** The value at a JSON pointer of the published schema, or undefined. */
function at(pointer: string): unknown {
  let node: unknown = SCHEMA;
  for (const raw of pointer.split("/").slice(1)) {
    const part = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

function fieldsOf(c: Coverage): Map<string, SdkField[]> {
  const out = new Map<string, SdkField[]>();
  for (const iface of c.interfaces)
    for (const f of sdkFields(c.file, iface)) out.set(f.name, [...(out.get(f.name) ?? []), f]);
  return out;
}

const keysOf = (d: Disposition): string[] =>
  d === "path" || !("key" in d) ? [] : Array.isArray(d.key) ? d.key : [d.key];

describe(`the published schema against the cloudflare package ${sdkVersion()}`, () => {
  for (const [what, c] of Object.entries(COVERAGE)) {
    it(`${what}: every field the SDK declares is a key of the file or listed with its reason`, () => {
      const declared = fieldsOf(c);
      const unaccounted = [...declared.keys()].filter((f) => !(f in c.fields));
      expect(
        unaccounted,
        `cloudflare ${sdkVersion()} declares ${unaccounted.join(", ")} on ${c.interfaces.join(", ")} ` +
          `(resources/${c.file}): give it a key in the schema (src/sections/*/schema.json) and the planner, or ` +
          "list it in this test with the reason it is not modeled or refused",
      ).toEqual([]);
      const stale = Object.keys(c.fields).filter((f) => !declared.has(f));
      expect(stale, `listed here but no longer declared by the SDK: ${stale.join(", ")}`).toEqual([]);
      for (const [field, d] of Object.entries(c.fields)) {
        for (const key of keysOf(d)) expect(at(key), `${field} → ${key}: not in the published schema`).toBeDefined();
        if (d !== "path" && "refused" in d) expect(d.refused.length).toBeGreaterThan(20);
        if (d !== "path" && "notModeled" in d) expect(d.notModeled.length).toBeGreaterThan(20);
        if (d !== "path" && "carried" in d) {
          expect(c.carries, `${field}: carried, but the coverage names no list`).toBeDefined();
          expect(c.carries, `${field} is not among what the section's PATCH carries back`).toContain(field);
        }
      }
      // A field the section carries back that the SDK no longer declares is dead weight in every PATCH.
      for (const carried of c.carries ?? []) expect(declared.has(carried), `${carried} carried back`).toBe(true);
    });

    if (c.enums) {
      it(`${what}: every value the SDK allows is one the schema takes, or refused with its reason`, () => {
        const declared = fieldsOf(c);
        for (const [field, e] of Object.entries(c.enums!)) {
          const values = [...new Set(declared.get(field)?.flatMap((f) => f.literals ?? []) ?? [])];
          expect(values.length, `${field}: the SDK declares no literal values for it`).toBeGreaterThan(0);
          const schema = at(e.key) as { enum?: unknown[]; pattern?: string };
          const refused = Object.keys(e.refused ?? {});
          for (const reason of [...Object.values(e.refused ?? {}), ...Object.values(e.extra ?? {})])
            expect(reason.length).toBeGreaterThan(20);
          const accepted = values.filter((v) => !refused.includes(v));
          if (schema.enum) {
            expect(
              [...schema.enum].sort(),
              `${field}: the schema's values against the SDK's (${values.join(", ")})`,
            ).toEqual([...accepted, ...Object.keys(e.extra ?? {})].sort());
            for (const v of refused) expect(schema.enum, `${field}: ${v} is refused`).not.toContain(v);
          } else {
            // An open set (datasets): every SDK value must be a name the schema's pattern takes.
            expect(schema.pattern, `${field}: the schema has neither enum nor pattern`).toBeDefined();
            const re = new RegExp(schema.pattern!);
            expect(accepted.filter((v) => !re.test(v))).toEqual([]);
          }
        }
      });
    }
  }

  it("every key of the schema's objects is an SDK field's, or zoneform's own with its reason", () => {
    const targets = new Set(Object.values(COVERAGE).flatMap((c) => Object.values(c.fields).flatMap(keysOf)));
    for (const [def, own] of Object.entries(ZONEFORM_OWN)) {
      const props = Object.keys((at(def) as { properties?: Record<string, unknown> }).properties ?? {});
      const orphans = props.filter((p) => !targets.has(`${def}/properties/${p}`) && !(p in own));
      expect(orphans, `${def}: keys neither an SDK field's nor listed as zoneform's own`).toEqual([]);
      for (const p of Object.keys(own)) expect(props, `${def}: ${p} listed as zoneform's own`).toContain(p);
    }
  });

  it("reads the declarations it is given, and fails on an interface the package does not declare", () => {
    const ssl = sdkFields("custom-hostnames/custom-hostnames.d.ts", "CustomHostnameEditParams.SSL");
    expect(ssl.find((f) => f.name === "certificate_authority")?.literals?.sort()).toEqual([
      "digicert",
      "google",
      "lets_encrypt",
      "ssl_com",
    ]);
    const job = sdkFields("logpush/jobs.d.ts", "JobUpdateParams");
    expect(job.find((f) => f.name === "frequency")).toMatchObject({ deprecated: true, literals: ["high", "low"] });
    expect(job.find((f) => f.name === "filter_attack_traffic")).toMatchObject({ optional: true, type: "boolean" });
    expect(() => sdkFields("logpush/jobs.d.ts", "NoSuchParams")).toThrow(/declares no interface NoSuchParams/);
  });
});
