// Query parameters of list endpoints: a bad value is a 400, code 1004, naming the parameter.
import { ApiFault } from "./types.js";

export function badQuery(message: string): ApiFault {
  return new ApiFault(400, [{ code: 1004, message }]);
}

export function readBoolean(query: URLSearchParams, name: string): boolean | undefined {
  const raw = query.get(name);
  if (raw === null || raw === "") return undefined;
  if (raw === "true") return true;
  if (raw === "false") return false;
  throw badQuery(`Invalid query parameter ${name}: must be true or false, got ${JSON.stringify(raw)}`);
}

export function readEnum(query: URLSearchParams, name: string, allowed: readonly string[]): string | undefined {
  const raw = query.get(name);
  if (raw === null || raw === "") return undefined;
  if (!allowed.includes(raw)) {
    throw badQuery(`Invalid query parameter ${name}: '${raw}' is not one of ${allowed.join(", ")}`);
  }
  return raw;
}
