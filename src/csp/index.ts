// csp: what other layers use of it (its front door).
// Spec: docs/commands/csp.md.
export { CspSuggester, hostExpression, type CspSuggestion, type DroppedSource } from "./suggest.js";
