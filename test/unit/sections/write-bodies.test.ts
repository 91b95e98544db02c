// Every write that updates a live object carries that object whole, as far as the section writes it:
// every field the API's object has (the official SDK's update parameters, test/helpers/
// sdk-declarations.ts) that the live object holds, from the live object with only the planned change,
// so that nothing is lost whether the API merges or replaces. One case per section of the registry, in
// the section's test folder (test/sections/<section>/write-body.case.ts, its helpers in
// test/sections/write-body-helpers.ts): a section added without one fails the first test. Where a body
// leaves a field out on purpose, the case says why (and the section's code does too).
import { describe, expect, it } from "vitest";
import { sectionCases } from "../../sections/cases.js";
import type { WriteBodyCase } from "../../sections/write-body-helpers.js";

const { cases, problems } = sectionCases<WriteBodyCase>(
  import.meta.glob("../../sections/*/write-body.case.ts", { eager: true }),
  "write-body.case.ts",
  "writeBody",
);

describe("every update carries the whole object the section writes (live values with the change)", () => {
  it("has a case for every section of the registry", () => {
    expect(problems).toEqual([]);
  });
  for (const [section, check] of cases) it(section, check);
});
