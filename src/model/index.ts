// The plain types shared by every layer: the desired state and the plan.
export * from "./desired.js";
export * from "./plan.js";
