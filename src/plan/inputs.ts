// What binds a saved plan to the secrets it was made with: for every `${env:NAME}` the desired state
// used, scrypt (slow and memory-hard) of its name and value, salted by the plan's derived salt
// (digest.ts), so the file says whether a value is the same without holding it, the same plan always
// binds the same way (a stable digest), and a guess checked against one plan costs the KDF's price and
// says nothing about another. The KDF's parameters are recorded in the plan (`inputs.kdf`) and checked
// against bounds, so they can be raised later. `apply plan.json` refuses the plan when a value
// differs, is unset, or was not bound. Each distinct (parameters, salt, name, value) is derived once
// per process; `prepareInputs` derives many at once on libuv's threads.
import { createHash, scrypt, scryptSync, timingSafeEqual } from "node:crypto";
import { getOwn, setOwn } from "../data-record.js";
import type { SecretRef, Env, PlanInputs, PlanKdf } from "../model/index.js";

/**
 * The KDF a plan made now records: 128·n·r bytes = 20 MiB of memory and about 50 ms of one core per
 * value (docs/secrets.md has the measures).
 */
export const PLAN_KDF: Readonly<PlanKdf> = { name: "scrypt", n: 2 ** 14, r: 10, p: 1 };

/** The weakest and the dearest parameters a plan may record: below, a guess is cheap; above, a check is. */
const MIN = { n: 2 ** 14, r: 8, p: 1, memory: 16 * 1024 * 1024 };
const MAX = { n: 2 ** 20, r: 32, p: 4, memory: 256 * 1024 * 1024 };

const KEY_BYTES = 32;

/** What is wrong with recorded KDF parameters, in words, or undefined when they are within bounds. */
export function kdfProblem(kdf: PlanKdf): string | undefined {
  const { n, r, p } = kdf;
  const int = (v: number) => Number.isSafeInteger(v);
  if (kdf.name !== "scrypt") return `its KDF ${JSON.stringify(kdf.name)} is not scrypt`;
  if (!int(n) || !int(r) || !int(p) || n < 2 || (n & (n - 1)) !== 0)
    return "its scrypt parameters are not whole numbers with n a power of two";
  const memory = 128 * n * r;
  if (n < MIN.n || r < MIN.r || p < MIN.p || memory < MIN.memory)
    return (
      `its scrypt parameters (n ${n}, r ${r}, p ${p}) are weaker than zoneform allows (n ≥ ${MIN.n}, ` + `r ≥ ${MIN.r})`
    );
  if (n > MAX.n || r > MAX.r || p > MAX.p || memory > MAX.memory)
    return (
      `its scrypt parameters (n ${n}, r ${r}, p ${p}) cost more than zoneform checks (n ≤ ${MAX.n}, r ≤ ${MAX.r}, ` +
      `p ≤ ${MAX.p}, 128·n·r ≤ 256 MiB)`
    );
  return undefined;
}

const options = (kdf: PlanKdf) => ({ N: kdf.n, r: kdf.r, p: kdf.p, maxmem: 2 * 128 * kdf.n * kdf.r + 2 ** 20 });

/** The password: the reference's name and value, so that two names cannot swap values. */
const password = (name: string, value: string) => `${name}\u0000${value}`;

/** Derived values by a hash of what they were derived from (never the value itself as a key). */
const derived = new Map<string, string>();
const pending = new Map<string, Promise<string>>();
/** Enough for thousands of references; past it the oldest are dropped (derived again if needed). */
const MAX_CACHED = 4096;

function cacheKey(kdf: PlanKdf, salt: string, name: string, value: string): string {
  return createHash("sha256")
    .update(`${kdf.name}:${kdf.n}:${kdf.r}:${kdf.p}\u0000${salt}\u0000${password(name, value)}`)
    .digest("hex");
}

function remember(key: string, hex: string): string {
  if (derived.size >= MAX_CACHED) derived.delete(derived.keys().next().value!);
  derived.set(key, hex);
  return hex;
}

/** The bound value of one reference (hex), derived on this thread: for the paths that must stay synchronous. */
export function inputHashSync(kdf: PlanKdf, salt: string, name: string, value: string): string {
  const key = cacheKey(kdf, salt, name, value);
  const known = derived.get(key);
  if (known !== undefined) return known;
  return remember(key, scryptSync(password(name, value), salt, KEY_BYTES, options(kdf)).toString("hex"));
}

/** The bound value of one reference (hex), derived on libuv's threads; at once when already derived. */
export function inputHash(kdf: PlanKdf, salt: string, name: string, value: string): Promise<string> {
  const key = cacheKey(kdf, salt, name, value);
  const known = derived.get(key);
  if (known !== undefined) return Promise.resolve(known);
  let running = pending.get(key);
  if (!running) {
    running = new Promise<string>((resolve, reject) => {
      scrypt(password(name, value), salt, KEY_BYTES, options(kdf), (err, key32) =>
        err ? reject(err) : resolve(key32.toString("hex")),
      );
    }).then(
      (hex) => {
        pending.delete(key);
        return remember(key, hex);
      },
      (err: unknown) => {
        pending.delete(key);
        throw err;
      },
    );
    pending.set(key, running);
  }
  return running;
}

/** Each distinct reference once, in name order. */
function distinct(secrets: readonly SecretRef[]): SecretRef[] {
  const byName = new Map<string, SecretRef>();
  for (const s of secrets) byName.set(s.name, s);
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Derives the bound values of `secrets` under `salt` at once, so that `bindInputs` then finds them all. */
export async function prepareInputs(
  secrets: readonly SecretRef[],
  salt: string,
  kdf: PlanKdf = PLAN_KDF,
): Promise<void> {
  await Promise.all(distinct(secrets).map((s) => inputHash(kdf, salt, s.name, s.value)));
}

/** The inputs of a plan that used `secrets`; none when it used no reference. */
export function bindInputs(
  secrets: readonly SecretRef[],
  salt: string,
  kdf: PlanKdf = PLAN_KDF,
): PlanInputs | undefined {
  if (secrets.length === 0) return undefined;
  const env: Record<string, string> = {};
  for (const s of distinct(secrets)) setOwn(env, s.name, inputHashSync(kdf, salt, s.name, s.value));
  return { kdf: { ...kdf }, salt, env };
}

/**
 * The references whose value now is not the one the plan was made with, in words (`${env:X} has
 * another value than when the plan was made`): never a value. `used`: the references the desired
 * state uses now (a reference the plan did not bind is refused too). The recorded parameters are the
 * ones used; their bounds and the salt are checked before (engine/verify.ts).
 */
export async function changedInputs(
  inputs: PlanInputs | undefined,
  env: Env,
  used: readonly string[] = [],
): Promise<string[]> {
  const bound = inputs?.env ?? {};
  const names = Object.keys(bound).sort();
  const found = await Promise.all(
    names.map(async (name) => {
      const value = getOwn(env as Record<string, string | undefined>, name);
      if (value === undefined) return `\${env:${name}} is not set (the plan was made with a value)`;
      const want = Buffer.from(getOwn(bound, name) ?? "", "hex");
      const have = Buffer.from(await inputHash(inputs!.kdf, inputs!.salt, name, value), "hex");
      return want.length !== have.length || !timingSafeEqual(want, have)
        ? `\${env:${name}} has another value than when the plan was made`
        : undefined;
    }),
  );
  const out = found.filter((f): f is string => f !== undefined);
  for (const name of [...new Set(used)].sort()) {
    if (!Object.hasOwn(bound, name))
      out.push(`\${env:${name}} is used, but the plan records no hash of the value it was made with`);
  }
  return out;
}
