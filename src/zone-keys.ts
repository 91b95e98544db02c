// The keys of a zone in the file that name the zone or one of its live objects rather than configure
// it: never shared between zones (a file's `defaults:` refuses them, `export --defaults` never moves them).

/** A zone's own identity in the file. */
export const ZONE_IDENTITY_KEYS = ["zone_id", "name"] as const;

/** The key with which a list entry pins its live object (`id:`): an object of one zone. */
export const PIN_KEY = "id";
