// csp: what other layers use of it (its front door).
// Spec: docs/configuration.md, `page_shield`.
export { CspSuggester, hostExpression, type CspSuggestion, type DroppedSource } from "./suggest.js";
