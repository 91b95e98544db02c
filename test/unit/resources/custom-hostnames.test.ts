import { describe, expect, it } from "vitest";
import type { CloudflareClient } from "../../../src/cloudflare/types.js";
import { createReadContext } from "../../../src/engine/reconcile.js";
import type { CertificateAuthority, DesiredState, DesiredZone } from "../../../src/model/desired.js";
import {
  customHostnames, normaliseCustomHostname, PER_HOSTNAME_LOOKUP_LIMIT, type LiveCustomHostname, type LiveCustomHostnames,
} from "../../../src/resources/custom-hostnames.js";

const Z = "0123456789abcdef0123456789abcdef";
const zone = (hosts: Array<[string, CertificateAuthority]> | undefined): DesiredZone => ({
  zone_id: Z,
  ...(hosts ? { custom_hostnames: hosts.map(([hostname, certificate_authority]) => ({ hostname, certificate_authority })) } : {}),
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
    const { changes, errors } = customHostnames.diff(zone([["shop.acme.example", "google"]]), live(host("shop.acme.example", "digicert", "txt")));
    expect(errors).toEqual([]);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ kind: "update", resource: "custom_hostname", identity: "shop.acme.example", live_id: "id-shop.acme.example" });
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

  it("makes no change when the CA already matches, including the default CA \"\"", () => {
    const z = zone([
      ["a.example", "google"],
      ["b.example", ""],
    ]);
    expect(customHostnames.diff(z, live(host("a.example", "google"), host("b.example", ""))).changes).toEqual([]);
  });

  it("explains the retired lets_encrypt chain when moving off it, and what \"\" means", () => {
    const { changes } = customHostnames.diff(zone([["a.example", ""]]), live(host("a.example", "lets_encrypt")));
    const notes = changes[0]!.notes!.join("\n");
    expect(notes).toMatch(/moves off lets_encrypt.*2024-09-09.*2024-09-30/);
    expect(notes).toMatch(/"" lets Cloudflare pick the CA.*CAA record/);
    expect(changes[0]!.summary).toBe('certificate authority lets_encrypt → "" (the default CA)');
    expect(changes[0]!.operations[0]!.body).toEqual({ ssl: { method: "http", type: "dv", certificate_authority: "" } });
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
      `custom hostname gone.example does not exist in zone ${Z}; zoneform never creates hostnames — create it first or remove it from the file`,
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

  it("reads an absent CA as the default \"\"", () => {
    expect(normaliseCustomHostname({ id: "1", hostname: "a.example", ssl: { method: "txt", type: "dv", status: "active" } })).toEqual({
      id: "1",
      hostname: "a.example",
      certificate_authority: "",
      method: "txt",
      type: "dv",
      ssl_status: "active",
    });
  });
});

/** A client that answers custom hostname lists from `all` and records the queries. */
function fakeClient(all: Array<Record<string, unknown>>) {
  const calls: Array<{ path: string; query?: Record<string, unknown> }> = [];
  const client = {
    async listAll(path: string, opts?: { query?: Record<string, unknown>; perPage?: number }) {
      calls.push({ path, query: { ...opts?.query, per_page: opts?.perPage } });
      const h = opts?.query?.hostname;
      return all.filter((x) => h === undefined || x.hostname === h);
    },
  } as unknown as CloudflareClient;
  return { client, calls };
}

const desired: DesiredState = { version: 1, safety: { max_deletes: 5 }, zones: [], secrets: [], files: [] };
const raw = (i: number) => ({ id: `id${i}`, hostname: `h${i}.example`, ssl: { method: "http", type: "dv", certificate_authority: "google" } });

describe("custom_hostname read", () => {
  it(`looks each hostname up with ?hostname= when at most ${PER_HOSTNAME_LOOKUP_LIMIT} are listed`, async () => {
    const { client, calls } = fakeClient([raw(1), raw(2), raw(3)]);
    const z = zone([
      ["h1.example", "google"],
      ["missing.example", "google"],
    ]);
    const { live: got, resources } = await customHostnames.read(createReadContext(client, desired), z);
    expect(calls).toEqual([
      { path: `zones/${Z}/custom_hostnames`, query: { hostname: "h1.example", per_page: 50 } },
      { path: `zones/${Z}/custom_hostnames`, query: { hostname: "missing.example", per_page: 50 } },
    ]);
    expect(got["h1.example"]).toMatchObject({ id: "id1", certificate_authority: "google" });
    expect(got["missing.example"]).toBeNull();
    expect(resources["missing.example"]).toEqual({ missing: true });
  });

  it(`pages through the whole list once when more than ${PER_HOSTNAME_LOOKUP_LIMIT} are listed`, async () => {
    const many = Array.from({ length: PER_HOSTNAME_LOOKUP_LIMIT + 1 }, (_, i) => raw(i));
    const { client, calls } = fakeClient(many);
    const z = zone(many.map((h) => [h.hostname, "google"] as [string, CertificateAuthority]));
    const { live: got } = await customHostnames.read(createReadContext(client, desired), z);
    expect(calls).toEqual([{ path: `zones/${Z}/custom_hostnames`, query: { per_page: 50 } }]);
    expect(Object.values(got).every((h) => h !== null)).toBe(true);
  });
});
