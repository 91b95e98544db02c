// What the bundled CLI takes of undici (scripts/bundle-cli.mjs puts this module where "undici" is
// imported): the Agent, the retry interceptor and the request API on every dispatcher, wired as
// undici's own index.js wires them, without evaluating the rest of that index (fetch, WebSocket,
// cookies, caches, mocks: 20 ms of every command's start). A path that moves in an undici release
// fails the build, never a user's run; the test suite runs this bundle.
"use strict";
const Dispatcher = require("undici/lib/dispatcher/dispatcher");
const api = require("undici/lib/api");

Object.assign(Dispatcher.prototype, api);

module.exports = {
  Agent: require("undici/lib/dispatcher/agent"),
  interceptors: { retry: require("undici/lib/interceptor/retry") },
};
