// migration: what other layers use of it (its front door).
export { mapMigrationConfig, renderMigrationYaml, type MappedConfig, type MigrationConfig } from "./config-yaml.js";
export {
  MIGRATION_MODES,
  describeStart,
  explainCheck,
  explainStatus,
  startRefusal,
  type MigrationCheck,
  type MigrationMode,
  type MigrationStatus,
} from "./eligibility.js";
export { sensitivityTableLines } from "./sensitivity.js";
export { WAF_PHASE, planSwitch, sameEntrypoint } from "./switch-body.js";
