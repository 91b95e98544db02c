// What binds a saved plan to the values it was made with.
// Spec: docs/secrets.md.
import { createHash, scrypt, scryptSync, timingSafeEqual } from "node:crypto";
import { getOwn } from "../data-record.js";
import type { Env, PlanInputs, PlanKdf, SecretValues } from "../model/index.js";
import { EnvSecrets } from "./values.js";

export const PLAN_KDF: Readonly<PlanKdf> = { name: "scrypt", n: 2 ** 14, r: 10, p: 1 };

const MIN = { n: 2 ** 14, r: 8, p: 1, memory: 16 * 1024 * 1024 };
const MAX = { n: 2 ** 20, r: 32, p: 4, memory: 256 * 1024 * 1024 };

const KEY_BYTES = 32;

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

function password(pairs: readonly (readonly [string, string])[]): string {
  return pairs.map(([name, value]) => `${name}\u0000${value.length}\u0000${value}`).join("\u0000");
}

const derived = new Map<string, string>();
const pending = new Map<string, Promise<string>>();
/** Enough for any run; past it the oldest are dropped (derived again if needed). */
const MAX_CACHED = 64;

function cacheKey(kdf: PlanKdf, salt: string, secret: string): string {
  return createHash("sha256")
    .update(`${kdf.name}:${kdf.n}:${kdf.r}:${kdf.p}\u0000${salt}\u0000${secret}`)
    .digest("hex");
}

function remember(key: string, hex: string): string {
  if (derived.size >= MAX_CACHED) derived.delete(derived.keys().next().value!);
  derived.set(key, hex);
  return hex;
}

function bindingSync(kdf: PlanKdf, salt: string, pairs: readonly (readonly [string, string])[]): string {
  const secret = password(pairs);
  const key = cacheKey(kdf, salt, secret);
  const known = derived.get(key);
  if (known !== undefined) return known;
  return remember(key, scryptSync(secret, salt, KEY_BYTES, options(kdf)).toString("hex"));
}

/** The binding of `pairs` (hex), derived on libuv's threads; at once when already derived. */
function binding(kdf: PlanKdf, salt: string, pairs: readonly (readonly [string, string])[]): Promise<string> {
  const secret = password(pairs);
  const key = cacheKey(kdf, salt, secret);
  const known = derived.get(key);
  if (known !== undefined) return Promise.resolve(known);
  let running = pending.get(key);
  if (!running) {
    running = new Promise<string>((resolve, reject) => {
      scrypt(secret, salt, KEY_BYTES, options(kdf), (err, key32) =>
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

export async function prepareInputs(secrets: SecretValues, salt: string, kdf: PlanKdf = PLAN_KDF): Promise<void> {
  const pairs = EnvSecrets.pairs(secrets);
  if (pairs.length > 0) await binding(kdf, salt, pairs);
}

/** The inputs of a plan that used `secrets`; none when it used no reference. */
export function bindInputs(secrets: SecretValues, salt: string, kdf: PlanKdf = PLAN_KDF): PlanInputs | undefined {
  const pairs = EnvSecrets.pairs(secrets);
  if (pairs.length === 0) return undefined;
  return { kdf: { ...kdf }, salt, names: pairs.map(([name]) => name), hash: bindingSync(kdf, salt, pairs) };
}

export async function changedInputs(
  inputs: PlanInputs | undefined,
  env: Env,
  used: readonly string[] = [],
): Promise<string[]> {
  const names = [...(inputs?.names ?? [])].sort();
  const out: string[] = [];
  const pairs: [string, string][] = [];
  for (const name of names) {
    const value = getOwn(env as Record<string, string | undefined>, name);
    if (value === undefined) out.push(`\${env:${name}} is not set (the plan was made with a value)`);
    else pairs.push([name, value]);
  }
  if (out.length === 0 && inputs !== undefined && names.length > 0) {
    const want = Buffer.from(inputs.hash, "hex");
    const have = Buffer.from(await binding(inputs.kdf, inputs.salt, pairs), "hex");
    if (want.length !== have.length || !timingSafeEqual(want, have)) out.push(changedMessage(names));
  }
  const bound = new Set(names);
  for (const name of [...new Set(used)].sort()) {
    if (!bound.has(name))
      out.push(`\${env:${name}} is used, but the plan records no hash of the value it was made with`);
  }
  return out;
}

function changedMessage(names: readonly string[]): string {
  const refs = names.map((n) => `\${env:${n}}`);
  if (refs.length === 1) return `${refs[0]} has another value than when the plan was made`;
  const shown = refs.length <= 6 ? refs : [...refs.slice(0, 5), `${refs.length - 5} more`];
  return (
    `one at least of ${shown.slice(0, -1).join(", ")} and ${shown.at(-1)} has another value than when the ` +
    "plan was made (they are bound together: which one cannot be told)"
  );
}
