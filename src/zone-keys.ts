// The keys of a zone in the file that name the zone or one of its live objects rather than configure it.

/** A zone's own identity in the file. */
export const ZONE_IDENTITY_KEYS = ["zone_id", "name"] as const;

export const PIN_KEY = "id";
