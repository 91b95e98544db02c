// node:child_process for commander in the bundled CLI (scripts/bundle-cli.mjs): commander requires it
// when loaded, for executable subcommands zoneform does not have; loading it (with dgram and net's
// socket list) is a millisecond or two of every start. This loads it on first use instead.
"use strict";
let real;
module.exports = new Proxy(
  {},
  {
    get(_, key) {
      real ??= require("node:child_process");
      return real[key];
    },
  },
);
