// The caller itself.
// Spec: docs/emulator.md, Credentials.
import { tokenState } from "../../auth.js";
import { invalidTokenFault, notFoundFault } from "../../envelope.js";
import { md5Hex, tokenIdFor } from "../../ids.js";
import { SEED_TIME } from "../../defaults.js";
import { ApiFault, type Route, type RouteRequest, type RouteResponse } from "../../types.js";

function unauthorized(): ApiFault {
  return new ApiFault(403, [{ code: 9109, message: "Unauthorized to access requested resource" }]);
}

function callerToken(req: RouteRequest): string | undefined {
  return req.credential?.startsWith("token:") ? req.credential.slice("token:".length) : undefined;
}

/** The answer of the token check: the real API's status words (a token not yet valid is "active"). */
function tokenStatus(req: RouteRequest, token: string): Record<string, unknown> {
  const details = req.state.credentials.token_details?.[token];
  const state = tokenState(details, Date.parse(req.now()));
  return {
    id: tokenIdFor(token),
    status: state === "not_yet_valid" ? "active" : state,
    ...(details?.not_before !== undefined ? { not_before: details.not_before } : {}),
    ...(details?.expires_on !== undefined ? { expires_on: details.expires_on } : {}),
  };
}

function verify(req: RouteRequest): RouteResponse {
  const token = callerToken(req);
  if (token === undefined) throw new ApiFault(400, [{ code: 1001, message: 'Missing "Authorization" header' }]);
  if (req.state.credentials.token_details?.[token]?.account_id !== undefined) throw invalidTokenFault();
  return { result: tokenStatus(req, token) };
}

/** An account's token check: its own tokens only (another account's never get here: 403 / 9109). */
function verifyAccount(req: RouteRequest): RouteResponse {
  const token = callerToken(req);
  if (token === undefined) throw new ApiFault(400, [{ code: 1001, message: 'Missing "Authorization" header' }]);
  if (req.state.credentials.token_details?.[token]?.account_id !== req.params.account_id) throw invalidTokenFault();
  return { result: tokenStatus(req, token) };
}

function readToken(req: RouteRequest): RouteResponse {
  const caller = callerToken(req);
  if (caller === undefined || req.state.credentials.token_details?.[caller]?.policies === undefined)
    throw unauthorized();
  const account = req.params.account_id;
  const token = req.state.credentials.tokens.find(
    (t) =>
      tokenIdFor(t) === req.params.token_id &&
      (account === undefined || req.state.credentials.token_details?.[t]?.account_id === account),
  );
  if (token === undefined) throw notFoundFault("Token", 1003);
  return {
    result: {
      ...tokenStatus(req, token),
      name: `emulator token ${tokenIdFor(token).slice(0, 8)}`,
      issued_on: SEED_TIME,
      modified_on: SEED_TIME,
      policies: req.state.credentials.token_details?.[token]?.policies ?? [],
      condition: {},
    },
  };
}

function readUser(req: RouteRequest): RouteResponse {
  if (!req.credential?.startsWith("key:")) throw unauthorized();
  const email = req.credential.slice("key:".length);
  return {
    result: {
      id: md5Hex(`user:${email}`),
      email,
      first_name: null,
      last_name: null,
      suspended: false,
      two_factor_authentication_enabled: false,
    },
  };
}

export const routes: Route[] = [
  { method: "GET", pattern: "user/tokens/verify", handler: verify },
  { method: "GET", pattern: "user/tokens/:token_id", handler: readToken },
  { method: "GET", pattern: "accounts/:account_id/tokens/verify", handler: verifyAccount },
  { method: "GET", pattern: "accounts/:account_id/tokens/:token_id", handler: readToken },
  { method: "GET", pattern: "user", handler: readUser },
];
