// The Cloudflare v4 envelope and the server's own errors (spec/cloudflare-api-notes.md).
import { documented } from "./documentation.js";
import { ApiFault, type ApiErrorBody } from "./types.js";

export interface Envelope {
  result: unknown;
  success: boolean;
  errors: ApiErrorBody[];
  messages: unknown[];
  result_info?: Record<string, unknown>;
}

export function successEnvelope(result: unknown, resultInfo?: Record<string, unknown>): Envelope {
  const body: Envelope = { result: result === undefined ? null : result, success: true, errors: [], messages: [] };
  if (resultInfo) body.result_info = resultInfo;
  return body;
}

export function failureEnvelope(errors: ApiErrorBody[]): Envelope {
  return { result: null, success: false, errors, messages: [] };
}

/** 7003 + 7000, as Cloudflare answers a path it cannot route (400 for a malformed id, else 404). */
export function routeFault(status: 400 | 404, path: string): ApiFault {
  return new ApiFault(status, [
    { code: 7003, message: `Could not route to /${path}, perhaps your object identifier is invalid?` },
    { code: 7000, message: "No route for that URI" },
  ]);
}

export function methodNotAllowed(method: string): ApiFault {
  // Not in the notes: Cloudflare's answer to a known path with the wrong method is 405 / 7001.
  return new ApiFault(405, [{ code: 7001, message: `Method ${method} not available for that URI.` }]);
}

export function missingAuthFault(): ApiFault {
  return new ApiFault(
    400,
    documented([{ code: 9106, message: "Missing X-Auth-Key, X-Auth-Email or Authorization headers" }]),
  );
}

export function malformedAuthFault(): ApiFault {
  return new ApiFault(
    400,
    documented([
      {
        code: 6003,
        message: "Invalid request headers",
        error_chain: [{ code: 6111, message: "Invalid format for Authorization header" }],
      },
    ]),
  );
}

export function authenticationFault(): ApiFault {
  return new ApiFault(403, documented([{ code: 10000, message: "Authentication error" }]));
}

export function invalidTokenFault(): ApiFault {
  return new ApiFault(401, documented([{ code: 1000, message: "Invalid API Token" }]));
}

export function unknownZoneFault(): ApiFault {
  // Code chosen by the emulator (documented in the README): the real code for a well-formed but unknown zone id
  // depends on the endpoint.
  return new ApiFault(404, [{ code: 1001, message: "Invalid zone identifier" }]);
}

export function unknownAccountFault(): ApiFault {
  return new ApiFault(403, [{ code: 9109, message: "Unauthorized to access requested resource" }]);
}

export function malformedJsonFault(): ApiFault {
  return new ApiFault(400, documented([{ code: 6007, message: "Malformed JSON in request body" }]));
}

export function contentTypeFault(): ApiFault {
  return new ApiFault(
    400,
    documented([{ code: 9207, message: "Request body is invalid. Content-type must be application/json" }]),
  );
}

export function throttledFault(): ApiFault {
  return new ApiFault(429, [{ code: 971, message: "Please wait and consider throttling your request speed" }]);
}

export function internalFault(err: unknown): ApiFault {
  const detail = err instanceof Error ? err.message : String(err);
  return new ApiFault(500, [{ code: 10001, message: `Internal emulator error: ${detail}` }]);
}

export function notFoundFault(what: string, code = 10006): ApiFault {
  return new ApiFault(404, [{ code, message: `${what} not found` }]);
}
