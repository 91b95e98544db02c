// The secrets layer: the one holder of `${env:…}` values and every place they may go (docs/secrets.md).
export { EnvSecrets, NO_SECRETS, holdsReference } from "./values.js";
export { declaredDocument, interpolateEnv, type TokenPlaces } from "./interpolate.js";
export { bindInputs, changedInputs, kdfProblem, prepareInputs } from "./binding.js";
export { readOnly, resolving } from "./client.js";
