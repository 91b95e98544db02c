import { putEntrypoint, type UnmetCase } from "../unmet-helpers.js";

// A second enabled log_custom_field rule logs a cookie the file does not list.
export const unmet: UnmetCase = async (ctx) => {
  await putEntrypoint(ctx, "http_log_custom_fields", [
    { action: "log_custom_field", expression: "true", action_parameters: { request_fields: [{ name: "a" }] } },
    {
      action: "log_custom_field",
      expression: 'http.host eq "api.example.com"',
      action_parameters: { cookie_fields: [{ name: "session" }] },
    },
  ]);
  return {
    yaml: "logs:\n  custom_fields:\n    request_headers: [a]\n",
    says: "log fields of their own, so the file's could not be met",
  };
};
