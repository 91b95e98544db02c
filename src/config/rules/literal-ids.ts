// Ids and zone names are written as they are.
// Spec: docs/secrets.md.
import { accountsOf, asRecord, childPointer, literalOnly, zonesOf, type Rule } from "../../sections/index.js";

function* idsIn(value: unknown, pointer: string): Generator<{ pointer: string; what: string }> {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) yield* idsIn(value[i], childPointer(pointer, i));
    return;
  }
  const record = asRecord(value);
  if (!record) return;
  for (const [key, v] of Object.entries(record)) {
    if (key === "id" && typeof v === "string") yield { pointer: childPointer(pointer, key), what: "an id" };
    else yield* idsIn(v, childPointer(pointer, key));
  }
}

export const literalIds: Rule = literalOnly(function* (doc) {
  yield { pointer: "/account_id", what: "account_id" };
  for (const { pointer } of zonesOf(doc)) {
    yield { pointer: `${pointer}/zone_id`, what: "a zone's zone_id" };
    yield { pointer: `${pointer}/name`, what: "a zone's name" };
    yield { pointer: `${pointer}/account_id`, what: "a zone's account_id" };
  }
  for (const { pointer } of accountsOf(doc))
    yield { pointer: `${pointer}/account_id`, what: "an account's account_id" };
  yield* idsIn(doc, "");
});
