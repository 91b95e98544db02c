// csp: what other layers use of it (its front door).
export { CspSuggester, hostExpression, type CspSuggestion, type DroppedSource } from "./suggest.js";
