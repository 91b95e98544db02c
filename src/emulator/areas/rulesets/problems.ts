// The rulesets API's error shapes, shared by its validation and routes.
import { ApiFault, type ApiErrorBody } from "../../types.js";

export const RULESET_CODE = { invalid: 20021, kindExceeded: 20217, previousWaf: 20219, notFound: 10003 } as const;

export function invalid(errors: ApiErrorBody[]): ApiFault {
  return new ApiFault(400, errors);
}

/** The rulesets API's message shape: "'<value>' is not a valid value for <field> because <reason>". */
export function problem(pointer: string, value: unknown, field: string, reason: string): ApiErrorBody {
  const shown = typeof value === "string" ? value : JSON.stringify(value);
  return {
    code: RULESET_CODE.invalid,
    message: `'${shown}' is not a valid value for ${field} because ${reason}`,
    source: { pointer: pointer || "/" },
  };
}
