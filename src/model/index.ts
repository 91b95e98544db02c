export * from "./desired.js";
export * from "./plan.js";
