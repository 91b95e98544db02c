// undici parses HTTP/1.1 with llhttp compiled to WebAssembly: one module for the process, compiled when its
// first HTTP/1.1 connection is made. V8 runs each of its functions first as Liftoff's code; once a function
// has used up its tiering budget (V8's --wasm-tiering-budget), V8 compiles it again with TurboFan on a
// background thread, and a process cannot end before that compile has: a cold 1-zone plan waited about
// 25 ms after its output for it (docs/performance.md). Liftoff's parser is as fast for zoneform's answers
// (2 000 answers of 75 KB: no slower), so a short-lived process (the CLI, the Action) makes that one module
// with a budget it never uses up.
//
// V8 reads the budget when the module is compiled. The flag is set for that moment only, in the connection's
// callback, where undici makes the parser synchronously, and set back at once to V8's default: a V8 flag
// that is not at its default changes the hash every code cache is checked against, and Node's own modules
// and its compile cache would then be compiled again (about 10 ms for a bare start).
import { setFlagsFromString } from "node:v8";
import buildConnector from "undici/lib/core/connect.js";

/** V8's default --wasm-tiering-budget on Node 22, 24 and 26 (`node --v8-options`; a test checks the running Node's). */
export const V8_DEFAULT_WASM_TIERING_BUDGET = 13_000_000;
/** Far beyond what a run's answers use up (V8 takes an int32). */
const FIRST_TIER_BUDGET = 2_000_000_000;

let parserMade = false;

/** Whether V8's WebAssembly flags were given to this process: then they are its own to tune, and nothing is changed. */
function v8FlagsGiven(): boolean {
  return process.execArgv.some((a) => /^--(no-)?(wasm|liftoff)/.test(a));
}

type Connector = ReturnType<typeof buildConnector>;

/**
 * undici's connector made from `options` as undici makes it, whose first plain HTTP/1.1 connection of the process
 * makes undici's parser module with a tiering budget it never uses up (see above). Every other connection, an
 * HTTP/2 one (no llhttp) and a process given V8's WebAssembly flags get undici's connector unchanged.
 */
export function firstTierParserConnector(options: Parameters<typeof buildConnector>[0]): Connector {
  const connect = buildConnector(options);
  if (v8FlagsGiven()) return connect;
  return (opts, callback) =>
    connect(opts, (...args) => {
      const [err, socket] = args;
      if (parserMade || err || !socket || (socket as { alpnProtocol?: unknown }).alpnProtocol === "h2") {
        callback(...args);
        return;
      }
      parserMade = true;
      setFlagsFromString(`--wasm-tiering-budget=${FIRST_TIER_BUDGET}`);
      try {
        callback(...args);
      } finally {
        setFlagsFromString(`--wasm-tiering-budget=${V8_DEFAULT_WASM_TIERING_BUDGET}`);
      }
    });
}
