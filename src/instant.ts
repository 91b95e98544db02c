// The instant zoneform takes as "now".
// Spec: docs/emulator.md, "Clock".

/** The environment variable that sets the clock. */
export const NOW_ENV = "ZONEFORM_NOW";

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2})))?$/i;

export const INSTANT_EXPECTED =
  "an ISO 8601 date or date-time with Z or an offset, e.g. 2026-11-25 or 2026-11-25T12:00:00Z";

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** An ISO 8601 instant read strictly: its form, then its calendar. */
export function readInstant(text: string): { ms: number } | { problem: string; detail?: string } {
  const t = text.trim();
  const m = INSTANT.exec(t);
  if (!m) return { problem: `is not ${INSTANT_EXPECTED}` };
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const num = (i: number) => (m[i] === undefined ? 0 : Number(m[i]));
  const wrong = (detail: string) => ({ problem: `is not ${INSTANT_EXPECTED}: ${detail}`, detail });
  if (month < 1 || month > 12) return wrong(`there is no month ${m[2]}`);
  const inMonth = month === 2 ? (leap(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  if (day < 1 || day > inMonth) return wrong(`${MONTHS[month - 1]} ${m[1]} has no day ${m[3]} (it has ${inMonth})`);
  if (num(4) > 23) return wrong(`there is no hour ${m[4]} (00 to 23)`);
  if (num(5) > 59) return wrong(`there is no minute ${m[5]} (00 to 59)`);
  if (num(6) > 59) return wrong(`there is no second ${m[6]} (00 to 59)`);
  if (num(7) > 23 || num(8) > 59) return wrong(`there is no offset ${t.slice(-6)} (at most ±23:59)`);
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? { problem: `is not ${INSTANT_EXPECTED}` } : { ms };
}

function leap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function parseInstant(text: string): number | undefined {
  const r = readInstant(text);
  return "ms" in r ? r.ms : undefined;
}

export function clockFromEnv(env: Record<string, string | undefined>): () => Date {
  const text = env[NOW_ENV];
  if (text === undefined || text === "") return () => new Date();
  const r = readInstant(text);
  if ("problem" in r) throw new Error(`${NOW_ENV}=${JSON.stringify(text)} ${r.problem}`);
  return () => new Date(r.ms);
}
