// The custom hostnames of an emulated zone, each stored as its answers show it.

export interface CustomHostnamesZoneState {
  /** UUID ids; the full `ssl` object of the real API. */
  custom_hostnames: Array<Record<string, unknown> & { id: string }>;
}

declare module "../../types.js" {
  interface AreaStates {
    custom_hostnames: { zone: CustomHostnamesZoneState };
  }
}
