// The seed's fixed values.
// Spec: docs/emulator.md, The seed.

export const SEED_ACCOUNT_ID = "0123456789abcdef0123456789abcdef";
/**
 * A fixed past instant, for the few timestamps no window counts from (a token's issued_on, a state file's
 * missing account rulesets).
 */
export const SEED_TIME = "2025-06-01T12:00:00.000Z";
export const DEFAULT_TOKEN = "emulator-token";
export const DEFAULT_EMAIL = "user@example.com";
export const DEFAULT_KEY = "emulator-key";
export const DEFAULT_RATE_LIMIT = { requests: 1200, seconds: 300 };
