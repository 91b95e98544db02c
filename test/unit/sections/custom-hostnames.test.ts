import { describe, expect, it } from "vitest";
import type { CloudflareClient } from "../../../src/cloudflare/types.js";
import { createReadContext } from "../../../src/engine/read.js";
import { AnswerShapeError } from "../../../src/errors.js";
import type { CertificateAuthority } from "../../../src/sections/custom_hostnames/index.js";
import type { DesiredState, DesiredZone } from "../../../src/sections/index.js";
import { customHostnames, LIST_PAGE_SIZE } from "../../../src/sections/custom_hostnames/custom-hostnames.js";
import { patchSsl } from "../../../src/sections/custom_hostnames/hostname-changes.js";
import {
  caSatisfied,
  normalizeCustomHostname,
  RETIRED_CA,
  type LiveCustomHostname,
  type LiveCustomHostnames,
} from "../../../src/sections/custom_hostnames/live.js";
import { caOfIssuer, ISSUER_TABLE } from "../../../src/sections/custom_hostnames/issuer.js";
import { parseConfigText } from "../../../src/config/index.js";
import { recordedResult } from "../recorded.js";
import { NO_SECRETS } from "../../../src/secrets/index.js";

const Z = "0123456789abcdef0123456789abcdef";
const zone = (hosts: Array<[string, CertificateAuthority]> | undefined): DesiredZone => ({
  zone_id: Z,
  ...(hosts
    ? { custom_hostnames: hosts.map(([hostname, certificate_authority]) => ({ hostname, certificate_authority })) }
    : {}),
});
const host = (hostname: string, ca: string, method = "http"): LiveCustomHostname => ({
  id: `id-${hostname}`,
  hostname,
  certificate_authority: ca,
  method,
  type: "dv",
  ssl_status: "active",
});
const live = (...hosts: Array<LiveCustomHostname | [string, null]>): LiveCustomHostnames =>
  Object.fromEntries(hosts.map((h) => (Array.isArray(h) ? [h[0], null] : [h.hostname.toLowerCase(), h])));

describe("custom_hostname diff", () => {
  it("patches the CA with the live method and type, and nothing else", () => {
    const { changes, errors } = customHostnames.diff(
      zone([["shop.acme.example", "google"]]),
      live(host("shop.acme.example", "digicert", "txt")),
    );
    expect(errors).toEqual([]);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      kind: "update",
      resource: "custom_hostname",
      identity: "shop.acme.example",
      live_id: "id-shop.acme.example",
    });
    expect(changes[0]!.fields).toEqual([{ field: "certificate_authority", before: "digicert", after: "google" }]);
    expect(changes[0]!.operations).toEqual([
      {
        method: "PATCH",
        path: `zones/${Z}/custom_hostnames/id-shop.acme.example`,
        body: { ssl: { method: "txt", type: "dv", certificate_authority: "google" } },
      },
    ]);
    expect(changes[0]!.notes!.join("\n")).toMatch(/re-triggers domain control validation \(method txt\)/);
  });

  it('makes no change when the CA already matches, including the default CA ""', () => {
    const z = zone([
      ["a.example", "google"],
      ["b.example", ""],
    ]);
    expect(customHostnames.diff(z, live(host("a.example", "google"), host("b.example", ""))).changes).toEqual([]);
  });

  it("explains the retired lets_encrypt chain when an explicit CA moves a hostname off it", () => {
    const { changes } = customHostnames.diff(zone([["a.example", "google"]]), live(host("a.example", "lets_encrypt")));
    const notes = changes[0]!.notes!.join("\n");
    expect(notes).toMatch(/moves off lets_encrypt.*2024-09-09.*2024-09-30/);
    expect(notes).not.toMatch(/digicert/);
    expect(changes[0]!.summary).toBe("certificate authority lets_encrypt → google");
    expect(changes[0]!.operations[0]!.body).toEqual({
      ssl: { method: "http", type: "dv", certificate_authority: "google" },
    });
  });

  it('lets "" accept whatever CA Cloudflare chose: no change against lets_encrypt, google, ssl_com or ""', () => {
    for (const ca of ["lets_encrypt", "google", "ssl_com", ""]) {
      const { changes, errors, warnings } = customHostnames.diff(
        zone([["a.example", ""]]),
        live(host("a.example", ca)),
      );
      expect(changes, ca).toEqual([]);
      expect(errors, ca).toEqual([]);
      expect(warnings, ca).toEqual([]);
    }
  });

  it('moves a hostname on digicert to "" even though "" accepts any other CA, and says why', () => {
    const { changes, errors } = customHostnames.diff(
      zone([["a.example", ""]]),
      live(host("a.example", "digicert", "txt")),
    );
    expect(errors).toEqual([]);
    expect(changes).toHaveLength(1);
    const c = changes[0]!;
    expect(c).toMatchObject({ kind: "update", identity: "a.example", live_id: "id-a.example" });
    expect(c.summary).toBe('certificate authority digicert → "" (the default CA)');
    expect(c.fields).toEqual([{ field: "certificate_authority", before: "digicert", after: "" }]);
    expect(c.before).toEqual({ certificate_authority: "digicert", method: "txt", type: "dv" });
    expect(c.after).toEqual({ certificate_authority: "", method: "txt", type: "dv" });
    expect(c.operations).toEqual([
      {
        method: "PATCH",
        path: `zones/${Z}/custom_hostnames/id-a.example`,
        body: { ssl: { method: "txt", type: "dv", certificate_authority: "" } },
      },
    ]);
    const notes = c.notes!.join("\n");
    expect(notes).toMatch(
      /moves off digicert, which Cloudflare no longer issues from \(no new orders or renewals since 2023-10-26\)/,
    );
    expect(notes).toMatch(/"" lets Cloudflare pick the CA.*CAA record/);
    expect(notes).toMatch(/re-triggers domain control validation \(method txt\)/);
    expect(notes).not.toMatch(/moves off lets_encrypt/);
  });

  it("requires an explicit CA to match exactly, digicert included", () => {
    const explicit = (want: CertificateAuthority, have: string) =>
      customHostnames.diff(zone([["a.example", want]]), live(host("a.example", have))).changes;
    expect(explicit("google", "ssl_com")).toHaveLength(1);
    expect(explicit("ssl_com", "google")).toHaveLength(1);
    expect(explicit("google", "")).toHaveLength(1);
    expect(explicit("lets_encrypt", "google")).toHaveLength(1);
    // A file that pins digicert keeps it (export writes that for a hostname still on it).
    expect(explicit("digicert", "digicert")).toEqual([]);
    expect(explicit("ssl_com", "ssl_com")).toEqual([]);
  });

  it("warns that lets_encrypt now uses only the self-signed root chain when moving onto it", () => {
    const { changes } = customHostnames.diff(zone([["a.example", "lets_encrypt"]]), live(host("a.example", "google")));
    const notes = changes[0]!.notes!.join("\n");
    expect(notes).toMatch(/self-signed root chain only/);
    expect(notes).not.toMatch(/moves off/);
  });

  it("is a plan error, never a create, when a listed hostname does not exist", () => {
    const { changes, errors } = customHostnames.diff(zone([["gone.example", "google"]]), live(["gone.example", null]));
    expect(changes).toEqual([]);
    expect(errors).toEqual([
      `custom hostname gone.example does not exist in zone ${Z}; zoneform never creates hostnames — create ` +
        `it first or remove it from the file`,
    ]);
  });

  it("refuses to change a CA when the API did not report the validation method", () => {
    const noMethod: LiveCustomHostname = { id: "x", hostname: "a.example", certificate_authority: "google" };
    const { changes, errors } = customHostnames.diff(zone([["a.example", "ssl_com"]]), live(noMethod));
    expect(changes).toEqual([]);
    expect(errors?.[0]).toMatch(/did not report its validation method/);
  });

  it("matches hostnames case-insensitively", () => {
    const { changes } = customHostnames.diff(zone([["Shop.Example", "google"]]), live(host("shop.example", "google")));
    expect(changes).toEqual([]);
  });

  it("is owned only when the file lists custom_hostnames", () => {
    expect(customHostnames.owns(zone(undefined))).toBe(false);
    expect(customHostnames.owns(zone([]))).toBe(true);
  });

  it('reads an absent CA as not stated (null), distinct from ""', () => {
    expect(
      normalizeCustomHostname({ id: "1", hostname: "a.example", ssl: { method: "txt", type: "dv", status: "active" } }),
    ).toEqual({
      id: "1",
      hostname: "a.example",
      certificate_authority: null,
      method: "txt",
      type: "dv",
      ssl_status: "active",
      ssl_writable: { method: "txt", type: "dv" },
    });
  });

  it("patches with the live ssl object's writable fields, only the CA changed", () => {
    const have = normalizeCustomHostname({
      id: "h1",
      hostname: "a.example",
      ssl: {
        id: "s1",
        status: "active",
        method: "txt",
        type: "dv",
        certificate_authority: "lets_encrypt",
        bundle_method: "force",
        wildcard: true,
        cloudflare_branding: false,
        txt_name: "_acme-challenge.a.example",
        txt_value: "v",
        validation_records: [{ status: "active" }],
        dcv_delegation_records: [{ cname: "c", cname_target: "t" }],
        expires_on: "2026-01-01T00:00:00Z",
        settings: {
          http2: "on",
          http3: "on",
          min_tls_version: "1.2",
          tls_1_3: "off",
          early_hints: "on",
          ciphers: ["AES128-SHA"],
          unknown_setting: 1,
        },
      },
    });
    const ssl = { method: "txt", type: "dv", bundle_method: "force", wildcard: true, cloudflare_branding: false };
    const settings = {
      http2: "on",
      min_tls_version: "1.2",
      tls_1_3: "off",
      early_hints: "on",
      ciphers: ["AES128-SHA"],
    };
    expect(have.ssl_writable).toEqual({ ...ssl, settings });
    expect(patchSsl(have, "google")).toEqual({ ...ssl, settings, certificate_authority: "google" });
    const { changes } = customHostnames.diff(zone([["a.example", "ssl_com"]]), live(have));
    expect(changes[0]!.operations).toEqual([
      {
        method: "PATCH",
        path: `zones/${Z}/custom_hostnames/h1`,
        body: { ssl: { ...ssl, settings, certificate_authority: "ssl_com" } },
      },
    ]);
    // Only the CA is shown as changing: the other ssl fields are sent as they are.
    expect(changes[0]!.fields).toEqual([{ field: "certificate_authority", before: "lets_encrypt", after: "ssl_com" }]);
  });

  it("leaves settings out of the PATCH when none of the live ones is writable, and nulls out of every field", () => {
    const have = normalizeCustomHostname({
      id: "h1",
      hostname: "a.example",
      ssl: {
        method: "http",
        type: "dv",
        certificate_authority: "google",
        bundle_method: null,
        wildcard: null,
        settings: { http3: "on" },
      },
    });
    expect(have.ssl_writable).toEqual({ method: "http", type: "dv" });
    expect(patchSsl(have, "")).toEqual({ method: "http", type: "dv", certificate_authority: "" });
  });

  it("never patches a hostname serving an uploaded certificate: a CA the file names stops the zone", () => {
    for (const upload of [
      { custom_certificate: "-----BEGIN CERTIFICATE-----" },
      { custom_csr_id: "7b163417-1d2b-4c84-a38a-2fb7a0cd7752" },
    ]) {
      const have = normalizeCustomHostname({
        id: "u1",
        hostname: "up.example",
        ssl: { method: "http", type: "dv", certificate_authority: "google", ...upload },
      });
      expect(have.uploaded).toBe(true);
      const { changes, errors, warnings } = customHostnames.diff(zone([["up.example", "ssl_com"]]), live(have));
      expect(changes).toEqual([]);
      expect(warnings).toEqual([]);
      expect(errors).toEqual([
        "custom hostname up.example serves an uploaded certificate, which no CA issues and no domain control " +
          "validation renews (live google): certificate_authority ssl_com cannot apply. Remove it from the " +
          "hostname in custom_hostnames (zoneform leaves the certificate as it is). Nothing in this zone is changed",
      ]);
      // Nothing to say when the CA already matches, or when the file leaves it to Cloudflare.
      expect(customHostnames.diff(zone([["up.example", "google"]]), live(have))).toEqual({
        changes: [],
        errors: [],
        warnings: [],
      });
      expect(customHostnames.diff(zone([["up.example", ""]]), live(have)).errors).toEqual([]);
    }
    expect(
      normalizeCustomHostname({ id: "n", hostname: "n.example", ssl: { custom_certificate: null, custom_csr_id: 5 } })
        .uploaded,
    ).toBeUndefined();
  });

  it("refuses an answer without a string id or hostname (never a PATCH of …/undefined)", () => {
    const bad: unknown[] = [
      { hostname: "a.example", ssl: {} },
      { id: "", hostname: "a.example" },
      { id: 17, hostname: "a.example" },
      { id: "x" },
      { id: "x", hostname: "" },
      { id: "x", hostname: 5 },
      null,
      "a.example",
      [],
    ];
    for (const raw of bad) expect(() => normalizeCustomHostname(raw), JSON.stringify(raw)).toThrow(AnswerShapeError);
    expect(() => normalizeCustomHostname({ hostname: "a.example" })).toThrow(
      /custom hostname without an id \("a\.example"\), expected a string id/,
    );
    expect(() => normalizeCustomHostname({ id: "x" })).toThrow(/custom hostname x without a hostname/);
    // An ssl of the wrong shape is refused; none at all (or null) is a hostname without a certificate.
    expect(() => normalizeCustomHostname({ id: "x", hostname: "a.example", ssl: "pending" })).toThrow(
      'the API answered custom hostname a.example with ssl "pending", expected an object',
    );
    for (const ssl of [undefined, null]) {
      expect(normalizeCustomHostname({ id: "x", hostname: "a.example", ssl })).toEqual({
        id: "x",
        hostname: "a.example",
        certificate_authority: null,
        no_ssl: true,
      });
    }
  });
});

describe("caSatisfied", () => {
  it('accepts any live CA but the retired one for "", and only the same CA otherwise', () => {
    expect(RETIRED_CA).toBe("digicert");
    for (const ca of ["google", "lets_encrypt", "ssl_com", ""]) expect(caSatisfied("", ca), ca).toBe(true);
    expect(caSatisfied("", "digicert")).toBe(false);
    expect(caSatisfied("google", "google")).toBe(true);
    expect(caSatisfied("digicert", "digicert")).toBe(true);
    expect(caSatisfied("google", "ssl_com")).toBe(false);
    expect(caSatisfied("google", "")).toBe(false);
  });
});

describe("custom hostnames as the real API answered them", () => {
  const readRecorded = async (name: string, wanted: Array<[string, CertificateAuthority]>) => {
    const { client } = fakeClient(recordedResult<Array<Record<string, unknown>>>(name));
    const z = zone(wanted);
    const { live: got } = await customHostnames.read(createReadContext(client, desired), z);
    return { z, got };
  };

  it("reads the v5 hostname (created without a CA) as the CA Cloudflare picked, with its writable ssl fields", () => {
    const [raw] = recordedResult<unknown[]>("cft_custom_hostnames_v5");
    expect(normalizeCustomHostname(raw)).toEqual({
      id: "234e5416-89bd-44ae-adea-93082b3a88ed",
      hostname: "okwyujswsc.terraform.cfapi.net",
      certificate_authority: "google",
      method: "txt",
      type: "dv",
      ssl_status: "pending_validation",
      ssl_writable: { bundle_method: "ubiquitous", method: "txt", type: "dv", wildcard: false },
    });
  });

  it(
    'plans nothing for "" against the v5 hostname, and a PATCH carrying its ssl fields for an ' + "explicit ssl_com",
    async () => {
      const h = "okwyujswsc.terraform.cfapi.net";
      const clean = await readRecorded("cft_custom_hostnames_v5", [[h, ""]]);
      expect(customHostnames.diff(clean.z, clean.got)).toEqual({ changes: [], errors: [], warnings: [] });

      const pinned = await readRecorded("cft_custom_hostnames_v5", [[h, "ssl_com"]]);
      const { changes, errors } = customHostnames.diff(pinned.z, pinned.got);
      expect(errors).toEqual([]);
      expect(changes).toHaveLength(1);
      expect(changes[0]!.summary).toBe("certificate authority google → ssl_com");
      expect(changes[0]!.operations).toEqual([
        {
          method: "PATCH",
          path: `zones/${Z}/custom_hostnames/234e5416-89bd-44ae-adea-93082b3a88ed`,
          body: {
            ssl: {
              method: "txt",
              type: "dv",
              bundle_method: "ubiquitous",
              wildcard: false,
              certificate_authority: "ssl_com",
            },
          },
        },
      ]);
    },
  );

  it("reads the v4 hostname as an uploaded certificate on digicert, its writable settings only", () => {
    const [raw] = recordedResult<unknown[]>("cft_custom_hostnames_v4");
    expect(normalizeCustomHostname(raw)).toEqual({
      id: "0d89c70d-ad9f-4843-b99f-6cc0252067e9",
      hostname: "app.example.com",
      issuer: "DigiCertInc",
      certificate_authority: "digicert",
      method: "http",
      type: "dv",
      ssl_status: "pending_validation",
      uploaded: true,
      ssl_writable: {
        method: "http",
        type: "dv",
        bundle_method: "ubiquitous",
        wildcard: false,
        // http3 is not writable; custom_key and custom_certificate never leave the answer.
        settings: {
          http2: "on",
          min_tls_version: "1.2",
          tls_1_3: "on",
          ciphers: ["ECDHE-RSA-AES128-GCM-SHA256", "AES128-SHA"],
        },
      },
    });
  });

  it('never patches the v4 uploaded certificate: no change for "", a zone error for an explicit google', async () => {
    const clean = await readRecorded("cft_custom_hostnames_v4", [["app.example.com", ""]]);
    const d = customHostnames.diff(clean.z, clean.got);
    expect(d.changes).toEqual([]);
    expect(d.errors).toEqual([]);
    // d.warnings is deliberately not asserted: src warns here, telling the user to remove a
    // certificate_authority the file does not state (reported to the src owner; see the task report).

    const pinned = await readRecorded("cft_custom_hostnames_v4", [["app.example.com", "google"]]);
    const { changes, errors, warnings } = customHostnames.diff(pinned.z, pinned.got);
    expect(changes).toEqual([]);
    expect(warnings).toEqual([]);
    expect(errors).toEqual([
      "custom hostname app.example.com serves an uploaded certificate, which no CA issues and no domain " +
        "control validation renews (live digicert): certificate_authority google cannot apply. Remove it from " +
        "the hostname in custom_hostnames (zoneform leaves the certificate as it is). Nothing in this zone is " +
        "changed",
    ]);
    // A file that pins what the answer holds plans nothing and says nothing.
    const same = await readRecorded("cft_custom_hostnames_v4", [["app.example.com", "digicert"]]);
    expect(customHostnames.diff(same.z, same.got)).toEqual({ changes: [], errors: [], warnings: [] });
  });
});

/**
 * A client that answers custom hostname lists from `all` (pages of `per_page`) and records the queries;
 * `listAll` (the client's strict whole-list read, tested in test/integration/client.test.ts) is recorded
 * as one call marked `whole`.
 */
function fakeClient(all: Array<Record<string, unknown>>) {
  const calls: Array<{ path: string; query?: Record<string, unknown>; whole?: true }> = [];
  const client = {
    async listAll(path: string, opts?: { query?: Record<string, unknown>; perPage?: number }) {
      calls.push({
        path,
        query: { ...opts?.query, ...(opts?.perPage !== undefined ? { per_page: opts.perPage } : {}) },
        whole: true,
      });
      const h = opts?.query?.hostname;
      return all.filter((x) => h === undefined || x.hostname === h);
    },
    async requestEnvelope(_method: string, path: string, opts?: { query?: Record<string, unknown> }) {
      calls.push({ path, query: { ...opts?.query } });
      const h = opts?.query?.hostname;
      const matching = all.filter((x) => h === undefined || x.hostname === h);
      const perPage = Number(opts?.query?.per_page ?? 20);
      const page = Number(opts?.query?.page ?? 1);
      const result = matching.slice((page - 1) * perPage, page * perPage);
      return {
        result,
        status: 200,
        result_info: { page, per_page: perPage, count: result.length, total_count: matching.length },
      };
    },
  } as unknown as CloudflareClient;
  return { client, calls };
}

const desired: DesiredState = { version: 1, safety: { max_deletes: 5 }, zones: [], secrets: NO_SECRETS, files: [] };
const raw = (i: number) => ({
  id: `id${i}`,
  hostname: `h${i}.example`,
  ssl: { method: "http", type: "dv", certificate_authority: "google" },
});
const LIST = { path: `zones/${Z}/custom_hostnames`, query: { per_page: LIST_PAGE_SIZE } };

describe("custom_hostname read", () => {
  it("reads the zone's list once (one page) and matches the listed hostnames in it", async () => {
    const { client, calls } = fakeClient([raw(1), raw(2), raw(3)]);
    const z = zone([
      ["h1.example", "google"],
      ["missing.example", "google"],
    ]);
    const { live: got, resources } = await customHostnames.read(createReadContext(client, desired), z);
    expect(calls).toEqual([LIST]);
    expect(got["h1.example"]).toMatchObject({ id: "id1", certificate_authority: "google" });
    expect(got["missing.example"]).toBeNull();
    expect(resources["missing.example"]).toEqual({ missing: true });
  });

  it("looks up with ?hostname= only the listed hostnames past the first page", async () => {
    const many = Array.from({ length: 3 * LIST_PAGE_SIZE }, (_, i) => raw(i));
    const { client, calls } = fakeClient(many);
    const z = zone([
      ["h1.example", "google"],
      [`h${LIST_PAGE_SIZE + 5}.example`, "google"],
      ["missing.example", "google"],
    ]);
    const { live: got } = await customHostnames.read(createReadContext(client, desired), z);
    expect(calls).toEqual([
      LIST,
      { path: LIST.path, query: { hostname: `h${LIST_PAGE_SIZE + 5}.example` }, whole: true },
      { path: LIST.path, query: { hostname: "missing.example" }, whole: true },
    ]);
    expect(got[`h${LIST_PAGE_SIZE + 5}.example`]).toMatchObject({ id: `id${LIST_PAGE_SIZE + 5}` });
    expect(got["missing.example"]).toBeNull();
  });

  it("reads the whole list instead when its other pages are fewer calls than the lookups", async () => {
    const many = Array.from({ length: 2 * LIST_PAGE_SIZE }, (_, i) => raw(i));
    const { client, calls } = fakeClient(many);
    const z = zone(
      many
        .slice(LIST_PAGE_SIZE - 1, LIST_PAGE_SIZE + 2)
        .map((h) => [h.hostname, "google"] as [string, CertificateAuthority]),
    );
    const { live: got } = await customHostnames.read(createReadContext(client, desired), z);
    expect(calls).toEqual([LIST, { path: LIST.path, query: { per_page: LIST_PAGE_SIZE }, whole: true }]);
    expect(Object.values(got).every((h) => h !== null)).toBe(true);
  });

  it("reads nothing for an empty list", async () => {
    const { client, calls } = fakeClient([raw(1)]);
    await customHostnames.read(createReadContext(client, desired), zone([]));
    expect(calls).toEqual([]);
  });
});

describe("custom hostname PATCH body: only values the API accepts", () => {
  const legacy = (ssl: Record<string, unknown>) =>
    normalizeCustomHostname({
      id: "l1",
      hostname: "old.example",
      ssl: { type: "dv", status: "active", certificate_authority: "lets_encrypt", ...ssl },
    });

  it("leaves a legacy method cname out of the writable fields; a CA change needs the file's method", () => {
    const have = legacy({ method: "cname", bundle_method: "ubiquitous" });
    expect(have.method).toBe("cname");
    expect(have.ssl_writable).toEqual({ type: "dv", bundle_method: "ubiquitous" });
    expect(have.legacy).toEqual(['method "cname"']);
    expect(JSON.stringify(patchSsl(have, "google"))).not.toContain("cname");
    const { changes, errors } = customHostnames.diff(zone([["old.example", "google"]]), live(have));
    expect(changes).toEqual([]);
    expect(errors).toEqual([
      'custom hostname old.example: its validation method is the legacy "cname", which the API no longer ' +
        "accepts in a PATCH (only http, txt, email); " +
        "a CA change must carry a method (error 1434) and zoneform will not choose one for you. Add " +
        "method: http, txt or email under the hostname in custom_hostnames (or set it on the hostname in the " +
        `dashboard, or PATCH zones/${Z}/custom_hostnames/l1 with ` +
        `{"ssl":{"method":"txt","type":"dv"}}), then plan again. Nothing in this zone is changed`,
    ]);
    // With the file's method, the CA change is made, the method changed with it.
    const chosen = customHostnames.diff(
      { zone_id: Z, custom_hostnames: [{ hostname: "old.example", certificate_authority: "google", method: "txt" }] },
      live(have),
    );
    expect(chosen.errors).toEqual([]);
    expect(chosen.changes[0]!.fields).toEqual([
      { field: "certificate_authority", before: "lets_encrypt", after: "google" },
      { field: "method", before: "cname", after: "txt" },
    ]);
    expect(chosen.changes[0]!.operations[0]!.body).toEqual({
      ssl: { type: "dv", bundle_method: "ubiquitous", method: "txt", certificate_authority: "google" },
    });
    // No change asked for: a legacy method is no reason to write.
    expect(customHostnames.diff(zone([["old.example", "lets_encrypt"]]), live(have))).toEqual({
      changes: [],
      errors: [],
      warnings: [],
    });
  });

  it("leaves out every other value outside the API's enums, and says so under the change", () => {
    const have = legacy({
      method: "txt",
      bundle_method: "legacy_bundle",
      wildcard: "no",
      settings: { min_tls_version: "0.9", http2: "on", tls_1_3: "zrtt", ciphers: [1] },
    });
    expect(have.ssl_writable).toEqual({ method: "txt", type: "dv", settings: { http2: "on" } });
    expect(have.legacy).toEqual([
      'bundle_method "legacy_bundle"',
      'wildcard "no"',
      "settings.ciphers [1]",
      'settings.min_tls_version "0.9"',
      'settings.tls_1_3 "zrtt"',
    ]);
    const { changes } = customHostnames.diff(zone([["old.example", "google"]]), live(have));
    expect(changes[0]!.operations[0]!.body).toEqual({
      ssl: { method: "txt", type: "dv", settings: { http2: "on" }, certificate_authority: "google" },
    });
    expect(changes[0]!.notes!.join("\n")).toContain(
      'live bundle_method "legacy_bundle", wildcard "no", settings.ciphers [1], settings.min_tls_version "0.9"',
    );
  });

  it("refuses a certificate type the API does not accept when the CA would change", () => {
    const have = legacy({ method: "txt", type: "ov" });
    const { changes, errors } = customHostnames.diff(zone([["old.example", "google"]]), live(have));
    expect(changes).toEqual([]);
    expect(errors?.[0]).toMatch(/certificate type is "ov", which the API does not accept in a PATCH \(only dv\)/);
  });
});

describe("a CA the answer does not state", () => {
  const unstated = (extra: Record<string, unknown> = {}) =>
    normalizeCustomHostname({
      id: "n1",
      hostname: "n.example",
      ssl: { method: "txt", type: "dv", status: "active", ...extra },
    });

  it("is null with the issuer from ssl.certificates[] (or ssl.issuer), and a CA of another type is refused", () => {
    expect(unstated({ certificates: [{ id: "c", issuer: "GoogleTrustServices" }] })).toMatchObject({
      certificate_authority: null,
      issuer: "GoogleTrustServices",
    });
    expect(unstated({ certificate_authority: null, issuer: "DigiCertInc" })).toMatchObject({
      certificate_authority: null,
      issuer: "DigiCertInc",
    });
    expect(unstated({ certificate_authority: "" }).certificate_authority).toBe("");
    expect(() => unstated({ certificate_authority: 7 })).toThrow(AnswerShapeError);
  });

  it("is told by the issuer when it names a CA: planned when another, nothing when the same", () => {
    const have = unstated({ certificates: [{ issuer: "GoogleTrustServices" }] });
    expect(customHostnames.diff(zone([["n.example", "google"]]), live(have))).toEqual({
      changes: [],
      errors: [],
      warnings: [],
    });
    expect(customHostnames.diff(zone([["n.example", ""]]), live(have)).changes).toEqual([]);
    const { changes, errors } = customHostnames.diff(zone([["n.example", "lets_encrypt"]]), live(have));
    expect(errors).toEqual([]);
    expect(changes).toHaveLength(1);
    expect(changes[0]!.summary).toBe(
      "certificate authority not stated (issued by GoogleTrustServices, so google) → lets_encrypt",
    );
    expect(changes[0]!.fields).toEqual([{ field: "certificate_authority", before: null, after: "lets_encrypt" }]);
    expect(changes[0]!.operations).toEqual([
      {
        method: "PATCH",
        path: `zones/${Z}/custom_hostnames/n1`,
        body: { ssl: { method: "txt", type: "dv", certificate_authority: "lets_encrypt" } },
      },
    ]);
    // An older DigiCert certificate (ssl.issuer DigiCertInc, as cft_custom_hostnames_v4): "" moves it off digicert.
    const digi = unstated({ issuer: "DigiCertInc" });
    const moved = customHostnames.diff(zone([["n.example", ""]]), live(digi)).changes;
    expect(moved[0]!.operations[0]!.body).toEqual({ ssl: { method: "txt", type: "dv", certificate_authority: "" } });
    expect(moved[0]!.notes!.join("\n")).toContain("moves off digicert");
  });

  it("stops the zone when the file names a CA and neither the CA field nor the issuer tells", () => {
    for (const have of [unstated(), unstated({ issuer: "Example Private CA" })]) {
      const { changes, errors, warnings } = customHostnames.diff(zone([["n.example", "google"]]), live(have));
      expect(changes).toEqual([]);
      expect(warnings).toEqual([]);
      expect(errors).toHaveLength(1);
      expect(errors![0]).toContain("custom hostname n.example: the API's answer states no certificate_authority and ");
      expect(errors![0]).toContain(
        "so zoneform cannot tell whether it is already google. Set the CA once (in the dashboard, or PATCH " +
          `zones/${Z}/custom_hostnames/n1 with {"ssl":{"method":"txt","type":"dv","certificate_authority":` +
          '"google"}}) so that the answer states it, or remove certificate_authority from the hostname in ' +
          "custom_hostnames. Nothing in this zone is changed",
      );
    }
    expect(customHostnames.diff(zone([["n.example", "google"]]), live(unstated())).errors![0]).toContain(
      "states no certificate_authority and no issuer either",
    );
    // "" asks nothing that cannot be told: a warning, no write.
    const loose = customHostnames.diff(zone([["n.example", ""]]), live(unstated({ issuer: "Example Private CA" })));
    expect(loose.changes).toEqual([]);
    expect(loose.errors).toEqual([]);
    expect(loose.warnings).toEqual([
      "custom hostname n.example: certificate authority not stated (issued by Example Private CA) in the API " +
        "answer; the file leaves the choice to Cloudflare, so nothing is written for it",
    ]);
  });
});

describe("the issuer table (a CA the answer does not state, told by who issued the certificate)", () => {
  it("maps each CA's issuer names to its id, and tells nothing of an issuer it does not know", () => {
    const cases: Array<[string, string | undefined]> = [
      ["LetsEncrypt", "lets_encrypt"],
      ["Let's Encrypt", "lets_encrypt"],
      ["CN=R3, O=Let's Encrypt, C=US", "lets_encrypt"],
      ["ISRG Root X1", "lets_encrypt"],
      ["GoogleTrustServices", "google"],
      ["Google Trust Services LLC", "google"],
      ["GTS CA 1P5", "google"],
      ["CN=WR1, O=Google Trust Services, C=US", "google"],
      ["SSL.com RSA SSL subCA", "ssl_com"],
      ["SSL Corporation", "ssl_com"],
      // The recorded answer's spelling (cft_custom_hostnames_v4).
      ["DigiCertInc", "digicert"],
      ["DigiCert Global G2 TLS RSA SHA256 2020 CA1", "digicert"],
      ["Sectigo RSA Domain Validation Secure Server CA", undefined],
      ["", undefined],
      ["!!!", undefined],
    ];
    for (const [issuer, ca] of cases) expect(caOfIssuer(issuer), issuer).toBe(ca);
    expect(caOfIssuer(undefined)).toBeUndefined();
    // One row per CA a hostname can be set to (and digicert, which a live hostname may still be on).
    expect(ISSUER_TABLE.map((r) => r.ca).sort()).toEqual(["digicert", "google", "lets_encrypt", "ssl_com"]);
    // An issuer two rows match tells nothing.
    expect(caOfIssuer("Let's Encrypt cross-signed by DigiCert")).toBeUndefined();
  });
});

describe("a hostname without a certificate (no ssl in the answer)", () => {
  const bare = normalizeCustomHostname({ id: "b1", hostname: "new.example", status: "active" });
  const want = (certificate_authority: CertificateAuthority, method?: "http" | "txt" | "email"): DesiredZone => ({
    zone_id: Z,
    custom_hostnames: [{ hostname: "new.example", certificate_authority, ...(method ? { method } : {}) }],
  });

  it("orders the certificate the file describes: method, type dv and the CA it names", () => {
    const { changes, errors } = customHostnames.diff(want("ssl_com", "txt"), live(bare));
    expect(errors).toEqual([]);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      kind: "update",
      live_id: "b1",
      summary: "order a certificate (validation method txt, certificate authority ssl_com)",
    });
    expect(changes[0]!.operations).toEqual([
      {
        method: "PATCH",
        path: `zones/${Z}/custom_hostnames/b1`,
        body: { ssl: { method: "txt", type: "dv", certificate_authority: "ssl_com" } },
      },
    ]);
    // "" leaves the CA to Cloudflare: none is sent.
    expect(customHostnames.diff(want("", "http"), live(bare)).changes[0]!.operations[0]!.body).toEqual({
      ssl: { method: "http", type: "dv" },
    });
  });

  it('stops the zone when the file names a CA but no method, saying what to add; warns only for ""', () => {
    const { changes, errors } = customHostnames.diff(want("google"), live(bare));
    expect(changes).toEqual([]);
    expect(errors).toEqual([
      "custom hostname new.example has no certificate (the API's answer has no ssl object, so no certificate " +
        "was ordered for it), so certificate_authority google cannot apply. To order one, add method: http, " +
        "txt or email under it in custom_hostnames (the domain control validation Cloudflare will use), then " +
        "plan again. Nothing in this zone is changed",
    ]);
    expect(customHostnames.diff(want(""), live(bare))).toEqual({
      changes: [],
      errors: [],
      warnings: [
        "custom hostname new.example has no certificate (the API's answer has no ssl object, so no certificate " +
          "was ordered for it); the file asks for none. To order one, add method: http, txt or email under it " +
          "in custom_hostnames",
      ],
    });
  });
});

describe("the DCV method the file states", () => {
  const want = (certificate_authority: CertificateAuthority, method: "http" | "txt" | "email"): DesiredZone => ({
    zone_id: Z,
    custom_hostnames: [{ hostname: "shop.example", certificate_authority, method }],
  });

  it("changes a different live method with the whole writable ssl; nothing when it is the same", () => {
    const have = host("shop.example", "google", "http");
    expect(customHostnames.diff(want("", "http"), live(have)).changes).toEqual([]);
    const { changes, errors } = customHostnames.diff(want("", "txt"), live(have));
    expect(errors).toEqual([]);
    expect(changes[0]!.summary).toBe("validation method http → txt");
    expect(changes[0]!.fields).toEqual([{ field: "method", before: "http", after: "txt" }]);
    // "" sends no CA: the hostname keeps the one Cloudflare picked.
    expect(changes[0]!.operations[0]!.body).toEqual({ ssl: { method: "txt", type: "dv" } });
    expect(changes[0]!.notes).toEqual([
      "a new validation method re-triggers domain control validation (method txt): the certificate is " +
        "re-issued once it succeeds",
    ]);
    // A CA the file names is sent with it (as the Terraform provider sends it).
    expect(customHostnames.diff(want("google", "email"), live(have)).changes[0]!.operations[0]!.body).toEqual({
      ssl: { method: "email", type: "dv", certificate_authority: "google" },
    });
    // With a CA change, one PATCH carries both.
    const both = customHostnames.diff(want("ssl_com", "txt"), live(have)).changes;
    expect(both).toHaveLength(1);
    expect(both[0]!.summary).toBe("certificate authority google → ssl_com; validation method http → txt");
    expect(both[0]!.operations[0]!.body).toEqual({
      ssl: { method: "txt", type: "dv", certificate_authority: "ssl_com" },
    });
  });

  it("is a key of the file: http, txt or email, nothing else", () => {
    const yaml = (method: string) =>
      `version: 1\nzones:\n  - zone_id: ${Z}\n    custom_hostnames:\n      - hostname: a.example\n        ` +
      `method: ${method}\n`;
    expect(parseConfigText(yaml("txt"), "z.yaml", {}).desired.zones[0]!.custom_hostnames).toEqual([
      { hostname: "a.example", certificate_authority: "", method: "txt" },
    ]);
    expect(() => parseConfigText(yaml("cname"), "z.yaml", {})).toThrow(
      "must be http, txt or email (the legacy cname cannot be set)",
    );
  });
});
