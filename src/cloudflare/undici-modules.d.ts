// Types of the undici modules src/cloudflare/undici.ts loads one by one (undici has no "exports" map, so
// they are its public files; their types are those of the package's own entry).
declare module "undici/lib/dispatcher/agent.js" {
  import type { Agent } from "undici";
  const AgentClass: typeof Agent;
  export default AgentClass;
}
declare module "undici/lib/dispatcher/dispatcher.js" {
  import type { Dispatcher } from "undici";
  const DispatcherClass: typeof Dispatcher;
  export default DispatcherClass;
}
declare module "undici/lib/api/api-request.js" {
  import type { Dispatcher } from "undici";
  const request: Dispatcher["request"];
  export default request;
}
declare module "undici/lib/interceptor/retry.js" {
  import type { interceptors } from "undici";
  const retry: typeof interceptors.retry;
  export default retry;
}
declare module "undici/lib/core/connect.js" {
  import type { buildConnector } from "undici";
  const buildConnectorFunction: typeof buildConnector;
  export default buildConnectorFunction;
}
