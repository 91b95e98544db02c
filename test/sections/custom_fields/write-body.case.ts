import { expect } from "vitest";
import { type LiveRule, writableRule } from "../../../src/sections/shared/entrypoint.js";
import { entrypoint, onlyChange, type WriteBodyCase, zoneOf } from "../write-body-helpers.js";

export const writeBody: WriteBodyCase = () => {
  // A rule PATCH replaces the whole rule: the live rule's writable fields, unknown ones included,
  // with only the fields the file lists changed.
  const rule: LiveRule = {
    id: "4444444444444444444444444444444d",
    version: "2",
    action: "log_custom_field",
    expression: "true",
    description: "from the dashboard",
    enabled: true,
    ref: "dash-fields",
    logging: { enabled: true },
    action_parameters: {
      request_fields: [{ name: "user-agent" }],
      response_fields: [{ name: "set-cookie", preserve_duplicates: true }],
      future_fields: [{ name: "x" }],
    },
  };
  const patch = onlyChange(
    "custom_fields",
    "custom_fields_rule",
    zoneOf("logs:\n  custom_fields:\n    request_headers: [user-agent, cf-ray]\n    response_headers: [set-cookie]\n"),
    { entrypoint: entrypoint("http_log_custom_fields", rule) },
  ).operations[0]!;
  expect(patch.method).toBe("PATCH");
  expect(patch.body).toEqual({
    ...writableRule(rule),
    action_parameters: { ...rule.action_parameters, request_fields: [{ name: "user-agent" }, { name: "cf-ray" }] },
  });
};
