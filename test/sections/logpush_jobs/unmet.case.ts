import type { UnmetCase } from "../unmet-helpers.js";

// A job pinned by id whose dataset differs: it cannot change in place, nor be replaced under a pin.
export const unmet: UnmetCase = async ({ emu, zone }) => {
  const job = await emu.api<{ id: number }>("POST", `zones/${zone}/logpush/jobs`, {
    name: "edge-logs",
    dataset: "http_requests",
    destination_conf: "https://logs.example.com/in",
    enabled: true,
  });
  return {
    yaml:
      `logs:\n  logpush_jobs:\n    - id: ${job.id}\n      name: edge-logs\n      dataset: firewall_events\n` +
      "      destination_conf: https://logs.example.com/in\n",
    says: "whose dataset cannot change in place",
  };
};
