// The two ways a request may leave with the desired state's strings in it.
import type { CloudflareClient, RequestOptions } from "../cloudflare/index.js";
import type { HttpMethod, SecretValues } from "../model/index.js";
import { RuntimeError } from "../errors.js";
import { holdsReference } from "./values.js";

function refuseReferences(method: HttpMethod, path: string, opts?: RequestOptions): void {
  if (holdsReference(path) || holdsReference(opts?.query) || holdsReference(opts?.body))
    throw new RuntimeError(
      `${method} ${path} would carry an \${env:…} reference before apply; nothing was sent. This is a fault of ` +
        "zoneform's: please report it.",
    );
}

export function readOnly(client: CloudflareClient): CloudflareClient {
  return {
    ...client,
    request: (method, path, opts) => {
      refuseReferences(method, path, opts);
      return client.request(method, path, opts);
    },
    requestEnvelope: (method, path, opts) => {
      refuseReferences(method, path, opts);
      return client.requestEnvelope(method, path, opts);
    },
    paginate: (path, opts) => {
      refuseReferences("GET", path, opts);
      return client.paginate(path, opts);
    },
    paginateCursor: (path, opts) => {
      refuseReferences("GET", path, opts);
      return client.paginateCursor(path, opts);
    },
    listAll: (path, opts) => {
      refuseReferences("GET", path, opts);
      return client.listAll(path, opts);
    },
    stats: () => client.stats(),
    close: () => client.close(),
  };
}

export function resolving(client: CloudflareClient, secrets: SecretValues): CloudflareClient {
  const put = (opts?: RequestOptions): RequestOptions | undefined =>
    opts?.body === undefined ? opts : { ...opts, body: secrets.resolveForWrite(opts.body) };
  return {
    ...readOnly(client),
    request: (method, path, opts) => {
      refuseReferences(method, path, { ...opts, body: undefined });
      return client.request(method, path, put(opts));
    },
    requestEnvelope: (method, path, opts) => {
      refuseReferences(method, path, { ...opts, body: undefined });
      return client.requestEnvelope(method, path, put(opts));
    },
  };
}
