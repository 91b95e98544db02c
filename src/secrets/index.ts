// The secrets layer: the one holder of `${env:…}` values and every place they may go (docs/secrets.md).
export { EnvSecrets, NO_SECRETS, holdsReference, literal } from "./values.js";
export { declaredDocument, interpolateEnv, type Interpolated, type TokenPlaces } from "./interpolate.js";
export { PLAN_KDF, bindInputs, changedInputs, kdfProblem, prepareInputs } from "./binding.js";
export { readOnly, resolving } from "./client.js";
