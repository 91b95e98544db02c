import type { CertificateAuthority, DcvMethod, DesiredCustomHostname } from "./types.js";
import type { Change } from "../../model/index.js";
import { zonePath } from "../shared/fields.js";
import {
  ACCEPTED,
  RETIRED_CA,
  RETIRING_CA,
  PATCH_METHODS,
  caLabel,
  caSatisfied,
  effectiveCa,
  notStated,
  type LiveCustomHostname,
} from "./live.js";

export const RESOURCE = "custom_hostname";

/** What a reviewer should know about moving a hostname from one CA to another. */
function chainNotes(from: string, to: CertificateAuthority, method: string | undefined): string[] {
  const notes: string[] = [];
  if (from === RETIRED_CA) {
    notes.push(
      "moves off digicert, which Cloudflare no longer issues from (no new orders or renewals since " +
        "2023-10-26): the certificate would not renew",
    );
  }
  if (from === RETIRING_CA) {
    notes.push(
      "moves off lets_encrypt, whose cross-signed chain was retired (not used in issuance or bundling from " +
        "2024-09-09, expired 2024-09-30); Cloudflare does not move custom hostname certificates off it for you",
    );
  }
  if (to === RETIRING_CA) {
    notes.push(
      "lets_encrypt certificates are bundled with the self-signed root chain only since 2024-09-09 (the " +
        "cross-signed chain expired 2024-09-30): clients that trusted only the cross-signed root will fail",
    );
  }
  if (to === "") {
    notes.push(
      '"" lets Cloudflare pick the CA: a more compatible one, falling back to lets_encrypt only when a CAA ' +
        "record on the hostname blocks the alternative",
    );
  }
  notes.push(
    `a CA change re-triggers domain control validation${method ? ` (method ${method})` : ""}: the ` +
      `certificate is re-issued once the new validation succeeds`,
  );
  return notes;
}

export function patchSsl(
  live: LiveCustomHostname,
  ca: CertificateAuthority | undefined,
  method?: DcvMethod,
): Record<string, unknown> {
  const { method: _m, type: _t, ...rest } = live.ssl_writable ?? {};
  const sent = method ?? (ACCEPTED.method!(live.method) ? live.method : undefined);
  const type = live.type === undefined ? { type: "dv" } : ACCEPTED.type!(live.type) ? { type: live.type } : {};
  return {
    ...rest,
    ...(sent !== undefined ? { method: sent } : {}),
    ...type,
    ...(ca !== undefined ? { certificate_authority: ca } : {}),
  };
}

/** Why a method a change must carry is missing or refused, or undefined when there is one. */
function methodProblem(zoneId: string, want: DesiredCustomHostname, live: LiveCustomHostname): string | undefined {
  if (want.method !== undefined) return undefined;
  if (!live.method) {
    return (
      `custom hostname ${want.hostname}: the API did not report its validation method, which this change ` +
      `must carry; add method: http, txt or email under it in custom_hostnames (zoneform will not choose ` +
      `one for you), then plan again. Nothing in this zone is changed`
    );
  }
  if (ACCEPTED.method!(live.method)) return undefined;
  // The API requires a method beside a CA change.
  return (
    `custom hostname ${want.hostname}: its validation method is the legacy ` +
    `${JSON.stringify(live.method)}, which the API no longer accepts in a PATCH ` +
    `(only ${PATCH_METHODS.join(", ")}); a CA change must carry a method (error 1434) and zoneform will ` +
    `not choose one for you. ` +
    `Add method: http, txt or email under the hostname in custom_hostnames (or set it on the hostname in ` +
    `the dashboard, or PATCH zones/${zoneId}/custom_hostnames/${live.id} with ` +
    `{"ssl":{"method":"txt","type":"dv"}}), then plan again. Nothing in this zone is changed`
  );
}

function updateChange(
  zoneId: string,
  want: DesiredCustomHostname,
  live: LiveCustomHostname,
  caTo: CertificateAuthority | undefined,
): Change | string {
  const problem = methodProblem(zoneId, want, live);
  if (problem) return problem;
  if (live.type !== undefined && !ACCEPTED.type!(live.type)) {
    return (
      `custom hostname ${want.hostname}: its certificate type is ${JSON.stringify(live.type)}, which ` +
      `the API does not accept in a PATCH (only dv); a change must carry a type, so zoneform writes ` +
      `nothing for it. Nothing in this zone is changed`
    );
  }
  const method = want.method ?? live.method;
  const liveCa = effectiveCa(live);
  const shown = { certificate_authority: live.certificate_authority, method: live.method, type: live.type ?? "dv" };
  const fields: Change["fields"] = [];
  const summary: string[] = [];
  const notes: string[] = [];
  if (caTo !== undefined) {
    fields.push({ field: "certificate_authority", before: live.certificate_authority, after: caTo });
    summary.push(`certificate authority ${caLabel(live.certificate_authority, live.issuer)} → ${caLabel(caTo)}`);
    notes.push(...chainNotes(liveCa ?? "", caTo, method));
  }
  if (want.method !== undefined && want.method !== live.method) {
    fields.push({ field: "method", before: live.method, after: want.method });
    summary.push(`validation method ${live.method ?? "not reported"} → ${want.method}`);
    if (caTo === undefined) {
      notes.push(
        `a new validation method re-triggers domain control validation (method ${want.method}): the ` +
          `certificate is re-issued once it succeeds`,
      );
    }
  }
  if (live.legacy) {
    notes.push(
      `live ${live.legacy.join(", ")}: not accepted in a PATCH, so left out of it (not echoed); whether the ` +
        `API keeps a field a PATCH leaves out is unconfirmed`,
    );
  }
  // A CA the file names is sent even when only the method changes.
  const ca = caTo ?? (want.certificate_authority !== "" ? want.certificate_authority : undefined);
  return {
    kind: "update",
    resource: RESOURCE,
    zone_id: zoneId,
    identity: want.hostname,
    live_id: live.id,
    summary: summary.join("; "),
    before: shown,
    after: {
      ...shown,
      ...(caTo !== undefined ? { certificate_authority: caTo } : {}),
      ...(method !== undefined ? { method } : {}),
    },
    fields,
    // A PATCH edits only the parts of the hostname it carries.
    operations: [
      {
        method: "PATCH",
        path: zonePath(zoneId, "custom_hostnames", live.id),
        body: { ssl: patchSsl(live, ca, want.method) },
      },
    ],
    notes,
  };
}

function orderChange(
  zoneId: string,
  want: DesiredCustomHostname,
  live: LiveCustomHostname,
): { change?: Change; error?: string; warning?: string } {
  if (want.method === undefined) {
    const what =
      `custom hostname ${want.hostname} has no certificate (the API's answer has no ssl object, so no ` +
      `certificate was ordered for it)`;
    if (want.certificate_authority === "") {
      return {
        warning:
          `${what}; the file asks for none. To order one, add method: http, txt or email under it in ` +
          `custom_hostnames`,
      };
    }
    return {
      error:
        `${what}, so certificate_authority ${want.certificate_authority} cannot apply. To order one, add ` +
        `method: http, txt or email under it in custom_hostnames (the domain control validation ` +
        `Cloudflare will use), then plan again. Nothing in this zone is changed`,
    };
  }
  const ssl = {
    method: want.method,
    type: "dv",
    ...(want.certificate_authority !== "" ? { certificate_authority: want.certificate_authority } : {}),
  };
  return {
    change: {
      kind: "update",
      resource: RESOURCE,
      zone_id: zoneId,
      identity: want.hostname,
      live_id: live.id,
      summary:
        `order a certificate (validation method ${want.method}, certificate authority ` +
        `${caLabel(want.certificate_authority)})`,
      before: { ssl: null },
      after: { ssl },
      fields: [{ field: "ssl", before: null, after: ssl }],
      operations: [{ method: "PATCH", path: zonePath(zoneId, "custom_hostnames", live.id), body: { ssl } }],
      notes: [
        `Cloudflare validates the hostname (method ${want.method}) before it issues the certificate: the ` +
          `answer's ssl.validation_records say what to publish`,
      ],
    },
  };
}

/** What stops the zone when the file names a CA or a method for a hostname serving an uploaded certificate. */
function uploadedError(want: DesiredCustomHostname, live: LiveCustomHostname): string | undefined {
  // "" leaves the CA alone; a CA or method the live certificate already shows is met.
  const caUnmet = want.certificate_authority !== "" && want.certificate_authority !== effectiveCa(live);
  const methodUnmet = want.method !== undefined && want.method !== live.method;
  const named = [
    ...(caUnmet ? [`certificate_authority ${want.certificate_authority}`] : []),
    ...(methodUnmet ? [`method ${want.method}`] : []),
  ];
  if (named.length === 0) return undefined;
  return (
    `custom hostname ${want.hostname} serves an uploaded certificate, which no CA issues and no domain ` +
    `control validation renews (live ${caLabel(live.certificate_authority, live.issuer)}): ` +
    `${named.join(" and ")} cannot apply. Remove ${named.length > 1 ? "them" : "it"} from the hostname in ` +
    `custom_hostnames (zoneform leaves the certificate as it is). Nothing in this zone is changed`
  );
}

/** What stops the zone when the file names a CA and the answer tells none. */
function cannotTellError(zoneId: string, want: DesiredCustomHostname, live: LiveCustomHostname): string {
  const issuer = live.issuer
    ? `its certificate's issuer (${JSON.stringify(live.issuer)}) is none zoneform knows`
    : "no issuer either";
  return (
    `custom hostname ${want.hostname}: the API's answer states no certificate_authority and ${issuer}, so ` +
    `zoneform cannot tell whether it is already ${want.certificate_authority}. Set the CA once (in the ` +
    `dashboard, or PATCH zones/${zoneId}/custom_hostnames/${live.id} with ` +
    `{"ssl":{"method":"${live.method ?? "txt"}","type":"dv","certificate_authority":` +
    `"${want.certificate_authority}"}}) so that the answer states it, or remove certificate_authority from ` +
    `the hostname in custom_hostnames. Nothing in this zone is changed`
  );
}

/** What the plan says of a hostname whose answer states no CA nor an issuer it knows, when the file asks "". */
function notStatedWarning(want: DesiredCustomHostname, live: LiveCustomHostname): string {
  return (
    `custom hostname ${want.hostname}: certificate authority ${notStated(live.issuer)} in the API answer; ` +
    `the file leaves the choice to Cloudflare, so nothing is written for it`
  );
}

/** The change a listed, existing hostname needs, an error that stops its zone, or a warning. */
export function planHostname(
  zoneId: string,
  want: DesiredCustomHostname,
  live: LiveCustomHostname,
): { change?: Change; error?: string; warning?: string } {
  if (live.uploaded) {
    const error = uploadedError(want, live);
    return error ? { error } : {};
  }
  if (live.no_ssl) return orderChange(zoneId, want, live);
  const liveCa = effectiveCa(live);
  let warning: string | undefined;
  let caTo: CertificateAuthority | undefined;
  if (liveCa === undefined) {
    if (want.certificate_authority !== "") return { error: cannotTellError(zoneId, want, live) };
    warning = notStatedWarning(want, live);
  } else if (!caSatisfied(want.certificate_authority, liveCa)) {
    caTo = want.certificate_authority;
  }
  const methodChanges = want.method !== undefined && want.method !== live.method;
  if (caTo === undefined && !methodChanges) return warning ? { warning } : {};
  const change = updateChange(zoneId, want, live, caTo);
  if (typeof change === "string") return { error: change };
  return { change, ...(warning ? { warning } : {}) };
}
