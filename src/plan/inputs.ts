// What binds a saved plan to the secrets it was made with: for every `${env:NAME}` the desired state
// used, HMAC-SHA-256 of its value keyed by a random salt of the plan's own, so the file says whether a
// value is the same without holding it (nor anything that can be checked against a guess made once
// for every plan). `apply plan.json` refuses the plan when a value differs, is unset, or was not bound.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { setOwn, getOwn } from "../data-record.js";
import type { SecretRef } from "../model/desired.js";
import type { Env } from "../model/env.js";
import type { Plan, PlanInputs } from "../model/plan.js";

/** The salt each plan object gets when it is first written or digested: one plan, one salt. */
const salts = new WeakMap<Plan, string>();

export function saltFor(plan: Plan): string {
  let salt = salts.get(plan);
  if (salt === undefined) {
    salt = randomBytes(16).toString("hex");
    salts.set(plan, salt);
  }
  return salt;
}

/** HMAC-SHA-256, keyed by the salt, of the reference's name and value (so two names cannot swap values). */
export function inputHash(salt: string, name: string, value: string): string {
  return createHmac("sha256", salt).update(`${name}\u0000${value}`).digest("hex");
}

/** The inputs of a plan that used `secrets`; none when it used no reference. */
export function bindInputs(secrets: readonly SecretRef[], salt: string): PlanInputs | undefined {
  if (secrets.length === 0) return undefined;
  const env: Record<string, string> = {};
  for (const s of [...secrets].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)))
    setOwn(env, s.name, inputHash(salt, s.name, s.value));
  return { salt, env };
}

/**
 * The references whose value now is not the one the plan was made with, in words (`${env:X} has
 * another value than when the plan was made`): never a value. `used`: the references the desired
 * state uses now (a reference the plan did not bind is refused too).
 */
export function changedInputs(inputs: PlanInputs | undefined, env: Env, used: readonly string[] = []): string[] {
  const out: string[] = [];
  const bound = inputs?.env ?? {};
  const names = Object.keys(bound).sort();
  for (const name of names) {
    const value = getOwn(env as Record<string, string | undefined>, name);
    if (value === undefined) {
      out.push(`\${env:${name}} is not set (the plan was made with a value)`);
      continue;
    }
    const want = Buffer.from(getOwn(bound, name) ?? "", "hex");
    const have = Buffer.from(inputHash(inputs!.salt, name, value), "hex");
    if (want.length !== have.length || !timingSafeEqual(want, have))
      out.push(`\${env:${name}} has another value than when the plan was made`);
  }
  for (const name of [...new Set(used)].sort()) {
    if (!Object.hasOwn(bound, name))
      out.push(`\${env:${name}} is used, but the plan records no hash of the value it was made with`);
  }
  return out;
}
