// The model layer's front door: the plain types shared by every layer (the desired state, the plan, the
// environment).
export * from "./desired.js";
export * from "./env.js";
export * from "./plan.js";
