// The environment zoneform reads (`${env:…}` references, credentials, settings): a plain record, so that the
// published types need no Node.js type declarations.
export type Env = Record<string, string | undefined>;
