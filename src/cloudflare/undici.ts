// The parts of undici the client uses: its Agent (connection pools, HTTP/1.1 parser), the request API and
// the retry interceptor, loaded without the rest of the package (fetch, WebSocket, EventSource, caches,
// mocks, proxies), which `import "undici"` evaluates whole: most of a cold command's start before its
// first request (docs/performance.md). undici's own entry puts the request API on Dispatcher's prototype;
// so does this module, with the same function, so that both can be loaded in one process.
import AgentClass from "undici/lib/dispatcher/agent.js";
import DispatcherClass from "undici/lib/dispatcher/dispatcher.js";
import request from "undici/lib/api/api-request.js";
import retry from "undici/lib/interceptor/retry.js";

const prototype = DispatcherClass.prototype as { request?: typeof request };
if (typeof prototype.request !== "function") prototype.request = request;

export const Agent = AgentClass;
export const interceptors = { retry };
