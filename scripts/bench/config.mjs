// The bench's desired state: N zones, each using every section of the format, and what the emulator
// needs to hold for it (zones with custom hostnames; the ownership tokens of the S3 destinations).
import { createHash } from "node:crypto";

export const ACCOUNT = "0123456789abcdef0123456789abcdef";
export const HOSTNAMES_PER_ZONE = 2;
export const POLICIES_PER_ZONE = 2;
export const JOBS_PER_ZONE = 2;
/** Jobs per zone whose destination needs an ownership challenge (s3). */
export const OWNED_JOBS_PER_ZONE = 1;

const md5 = (s) => createHash("md5").update(s).digest("hex");
export const zoneName = (i) => `bench-${i}.example`;
export const zoneIdOf = (i) => md5(zoneName(i));
export const s3Destination = (i) =>
  `s3://bench-logs/${i}/{DATE}?region=us-east-1` +
  "&access-key-id=${env:BENCH_AWS_KEY_ID}&secret-access-key=${env:BENCH_AWS_SECRET}";

/** Adds `HOSTNAMES_PER_ZONE` custom hostnames (CA lets_encrypt; the file asks for others) to bench zones. */
export function withCustomHostnames(state, count) {
  const template = state.zones.find((z) => z.custom_hostnames?.length)?.custom_hostnames[0];
  for (const zone of state.zones) {
    const m = /^bench-(\d+)\.example$/.exec(zone.name);
    if (!m || Number(m[1]) >= count) continue;
    zone.custom_hostnames = ["shop", "api"].map((sub) => {
      const hostname = `${sub}.${zone.name}`;
      const h = md5(hostname);
      const uuid = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
      return {
        ...structuredClone(template),
        id: h,
        hostname,
        ssl: { ...structuredClone(template.ssl), id: uuid, certificate_authority: "lets_encrypt" },
        ownership_verification: { type: "txt", name: `_cf-custom-hostname.${hostname}`, value: uuid },
        ownership_verification_http: {
          http_url: `http://${hostname}/.well-known/cf-custom-hostname-challenge/${uuid}`,
          http_body: uuid,
        },
      };
    });
  }
  return state;
}

/** The YAML of zones [from, to). */
export function benchConfig(from, to) {
  const lines = ["version: 1", `account_id: ${ACCOUNT}`, "zones:"];
  for (let i = from; i < to; i++) {
    lines.push(
      `  - zone_id: ${zoneIdOf(i)}`,
      `    name: ${zoneName(i)}`,
      "    page_shield:",
      "      enabled: true",
      "      use_cloudflare_reporting_endpoint: true",
      "      use_connection_url_path: false",
      "      policies:",
      "        - description: Checkout allow-list",
      "          action: allow",
      '          expression: http.request.uri.path contains "/checkout"',
      "          value: script-src 'self' https://js.stripe.com; connect-src 'self' https://api.stripe.com",
      "        - description: Report everything else",
      "          action: log",
      '          expression: not http.request.uri.path contains "/checkout"',
      "          value: script-src 'self'",
      "    waf:",
      "      owasp: { enabled: true, paranoia_level: 2, score_threshold: medium, action: managed_challenge }",
      "      cloudflare_managed: { enabled: true }",
      "    logs:",
      "      custom_fields:",
      "        request_headers: [user-agent, cf-ray]",
      "        response_headers: [cache-control]",
      "        cookies: [__Session]",
      "      logpush_jobs:",
      "        - name: http-to-s3",
      "          dataset: http_requests",
      `          destination_conf: "${s3Destination(i)}"`,
      `          ownership_challenge: \${env:BENCH_CHALLENGE_${i}}`,
      "          output_options: { field_names: [RayID, EdgeStartTimestamp, ClientIP, ClientRequestHost], " +
        "timestamp_format: rfc3339 }",
      `          filter: { where: { and: [ { key: ClientRequestHost, operator: eq, value: ${zoneName(i)} } ] } }`,
      "        - name: firewall-to-datadog",
      "          dataset: firewall_events",
      "          destination_conf: " +
        '"datadog://http-intake.logs.datadoghq.com/api/v2/logs?header_DD-API-KEY=${env:BENCH_DD_KEY}&service=waf"',
      "          output_options: { field_names: [Action, ClientIP, RayID] }",
      "    custom_hostnames:",
      `      - { hostname: shop.${zoneName(i)}, certificate_authority: google }`,
      `      - { hostname: api.${zoneName(i)}, certificate_authority: "" }`,
    );
  }
  return `${lines.join("\n")}\n`;
}

const OWASP_RULESET_ID = "4814384a9e5d4991b9815dcfc25d2f1f";
const CLOUDFLARE_MANAGED_RULESET_ID = "efb7b8c949ac4650a09736fc376e9aee";

/**
 * The reads a plan of the file (parsed YAML) cannot do without, from what it declares: per zone the
 * Page Shield settings, its policies, the WAF and log-fields entry points, the Logpush jobs and the
 * first page of custom hostnames (50 a page, enough for the bench's zones); once per run the OWASP
 * ruleset when a zone tunes it, and the Cloudflare Managed ruleset only when `deploying` (a zone
 * that does not run it yet). The sequential SDK client makes exactly these calls.
 */
export function readsOf(file, { deploying = false } = {}) {
  const reads = [];
  let owasp = false;
  let managed = false;
  for (const z of file.zones ?? []) {
    const zone = `zones/${z.zone_id}`;
    if (z.page_shield) {
      reads.push({ path: `${zone}/page_shield` });
      if (z.page_shield.policies) reads.push({ path: `${zone}/page_shield/policies` });
    }
    if (z.waf?.owasp || z.waf?.cloudflare_managed)
      reads.push({ path: `${zone}/rulesets/phases/http_request_firewall_managed/entrypoint` });
    if (z.logs?.custom_fields) reads.push({ path: `${zone}/rulesets/phases/http_log_custom_fields/entrypoint` });
    if (z.logs?.logpush_jobs) reads.push({ path: `${zone}/logpush/jobs` });
    if (z.custom_hostnames?.length) reads.push({ path: `${zone}/custom_hostnames`, query: { per_page: 50 } });
    owasp ||= z.waf?.owasp?.enabled === true;
    managed ||= deploying && z.waf?.cloudflare_managed?.enabled === true;
  }
  if (owasp) reads.push({ path: `accounts/${file.account_id}/rulesets/${OWASP_RULESET_ID}` });
  if (managed) reads.push({ path: `accounts/${file.account_id}/rulesets/${CLOUDFLARE_MANAGED_RULESET_ID}` });
  return reads;
}

/** The fewest checks and writes an apply of a fresh zone needs, beyond the reads. */
export function minimumApplyCalls(zones) {
  // checks: one destination check per job, one ownership check per s3 job
  const checks = JOBS_PER_ZONE + OWNED_JOBS_PER_ZONE;
  // writes: settings, each policy, each entry point created with its rules, each job, each hostname's CA
  const writes = 1 + POLICIES_PER_ZONE + 2 + JOBS_PER_ZONE + HOSTNAMES_PER_ZONE;
  return { checks: zones * checks, writes: zones * writes, chain: checks + writes };
}

/** The estate run's accounts: ids, their tokens, and the domain of their zones (`zone-N.<domain>`). */
export const ESTATE_ACCOUNTS = ["e1", "e2", "e3"].map((k) => ({
  id: md5(`estate-account-${k}`),
  token: `estate-token-${k}`,
  variable: `BENCH_TOKEN_${k.toUpperCase()}`,
  domain: `estate-${k}.example`,
}));

/** The zone names of an estate account holding `n` zones (as POST /__emulator/accounts names them). */
export const estateZones = (account, n) =>
  Array.from({ length: n }, (_, i) => {
    const name = `zone-${i + 1}.${account.domain}`;
    return { name, id: md5(name) };
  });

/** The reads a plan of the estate's file cannot do without, per account: its zones' (readsOf) and its own list. */
export function estateReadsOf(file) {
  const byAccount = new Map();
  for (const a of file.accounts ?? []) byAccount.set(a.account_id, a.logpush_jobs ? 1 : 0);
  for (const z of file.zones ?? []) {
    const reads = readsOf({ zones: [z] }).length;
    byAccount.set(z.account_id, (byAccount.get(z.account_id) ?? 0) + reads);
  }
  return byAccount;
}

/**
 * The estate's file: `accounts:` with each account's token and one account-level Logpush job, and `n`
 * zones per account (Page Shield settings and policies, log fields, a Logpush job: 4 reads a zone), each
 * naming its account so that its calls carry the account's token.
 */
export function estateConfig(n) {
  const lines = ["version: 1", "accounts:"];
  for (const a of ESTATE_ACCOUNTS) {
    lines.push(
      `  - account_id: ${a.id}`,
      `    api_token: \${env:${a.variable}}`,
      "    logpush_jobs:",
      "      - name: audit",
      "        dataset: audit_logs",
      `        destination_conf: "https://logs.example.com/${a.domain}/audit"`,
    );
  }
  lines.push("zones:");
  for (const a of ESTATE_ACCOUNTS) {
    for (const z of estateZones(a, n)) {
      lines.push(
        `  - zone_id: ${z.id}`,
        `    name: ${z.name}`,
        `    account_id: ${a.id}`,
        "    page_shield:",
        "      enabled: true",
        "      policies:",
        "        - description: Report everything",
        "          action: log",
        "          expression: 'true'",
        "          value: script-src 'self'",
        "    logs:",
        "      custom_fields:",
        "        request_headers: [user-agent, cf-ray]",
        "      logpush_jobs:",
        "        - name: firewall-to-datadog",
        "          dataset: firewall_events",
        "          destination_conf: " +
          '"datadog://http-intake.logs.datadoghq.com/api/v2/logs?header_DD-API-KEY=${env:BENCH_DD_KEY}&service=waf"',
      );
    }
  }
  return `${lines.join("\n")}\n`;
}
