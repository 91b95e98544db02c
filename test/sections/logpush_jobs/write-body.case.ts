import { expect } from "vitest";
import { normalizeLiveJob } from "../../../src/sections/logpush_jobs/live.js";
import { onlyChange, sdkBody, type WriteBodyCase, zoneOf } from "../write-body-helpers.js";

export const writeBody: WriteBodyCase = () => {
  // A job PUT: every field of JobUpdateParams the file manages on the job, changed or not, as the
  // file states it (the live job where they agree). Left out on purpose, each kept by the PUT
  // (Cloudflare's own example: a PUT keeps what it does not carry): the destination and its
  // ownership proof unless the destination changes, dataset and kind (they cannot change in place),
  // and the deprecated frequency and logpull_options.
  const raw = {
    id: 7,
    name: "http",
    dataset: "http_requests",
    destination_conf: "https://logs.example.com/in",
    enabled: true,
    kind: "",
    filter: '{"where":{"key":"ClientRequestHost","operator":"eq","value":"example.com"}}',
    output_options: { field_names: ["RayID"], sample_rate: 0.5 },
    max_upload_records: 5000,
    filter_attack_traffic: true,
  };
  const zone = zoneOf(
    "logs:\n  logpush_jobs:\n    - name: http\n      dataset: http_requests\n      destination_conf: " +
      "https://logs.example.com/in\n      enabled: false\n      filter: {where: {key: ClientRequestHost, " +
      "operator: eq, value: example.com}}\n      output_options: {field_names: [RayID], sample_rate: 0.5}\n" +
      "      max_upload_records: 5000\n      filter_attack_traffic: true\n",
  );
  const put = onlyChange("logpush_jobs", "logpush_job", zone, [normalizeLiveJob(raw)]).operations[0]!;
  expect(put.method).toBe("PUT");
  const onPurpose = ["destination_conf", "ownership_challenge", "dataset", "kind", "frequency", "logpull_options"];
  const stated = Object.keys(raw).filter((k) => k !== "id");
  const expected = sdkBody("logpush/jobs.d.ts", "JobUpdateParams").filter(
    (f) => !onPurpose.includes(f) && stated.includes(f),
  );
  expect(Object.keys(put.body as object).sort()).toEqual(expected.sort());
  expect(put.body).toEqual({
    name: "http",
    enabled: false,
    filter: raw.filter,
    output_options: raw.output_options,
    max_upload_records: 5000,
    filter_attack_traffic: true,
  });
};
