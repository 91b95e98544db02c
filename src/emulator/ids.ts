// Identifiers and deterministic randomness for the emulator.
import { createHash, randomBytes } from "node:crypto";

/** 32 lower-case hex characters, as Cloudflare's ids. */
export const HEX_ID = /^[0-9a-f]{32}$/;

/** The zone id the emulator gives a zone name: md5 hex of the name. */
export function zoneIdFor(name: string): string {
  return md5Hex(name);
}

/** The id (`GET user/tokens/verify` → `id`) the emulator gives an API token: never the token itself. */
export function tokenIdFor(token: string): string {
  return md5Hex(`api-token:${token}`);
}

export function md5Hex(text: string): string {
  return createHash("md5").update(text).digest("hex");
}

let idRng: (() => number) | undefined;

/**
 * Makes randomId() repeat a sequence, so scripts/docs-samples.mjs (which imports it from dist/) regenerates
 * documented outputs byte for byte.
 * @public
 */
export function seedIds(seed: number | undefined): void {
  idRng = seed === undefined ? undefined : createRng(seed);
}

/** A fresh random 32-hex id (policies, rulesets and other objects created through the API). */
export function randomId(): string {
  return idRng ? hexFrom(idRng, 32) : randomBytes(16).toString("hex");
}

/** Lower-case UUID, as custom hostname and certificate ids are (`234e5416-89bd-44ae-adea-93082b3a88ed`). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A version-4-shaped UUID derived from `text` (md5, with the version and variant bits set as in the recorded
 * ids): deterministic, so the seed names the same hostnames on every start.
 */
export function uuidFrom(text: string): string {
  const h = md5Hex(text);
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** mulberry32: tiny, fast and good enough for test data; returns floats in [0, 1). */
export function createRng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Turns any string into a 32-bit seed (FNV-1a). */
export function seedFrom(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

// One scratch buffer: hex ids and hashes come out as a single string each, with no intermediate strings for the
// garbage collector (50 000 scripts must generate in well under a second).
const scratch = Buffer.alloc(64);

/** `length` (even, at most 128) hex characters drawn from `rng`. */
export function hexFrom(rng: () => number, length: number): string {
  const bytes = length >> 1;
  for (let i = 0; i < bytes; i += 4) scratch.writeUInt32LE(Math.floor(rng() * 4294967296), i);
  return scratch.toString("hex", 0, bytes);
}
