// An emulated account's notification policies.

export type AlertingPolicy = Record<string, unknown> & { id: string };

/** An account's notification policies (absent on an entry another area made: none). */
interface NotificationsAccountState {
  alerting_policies?: AlertingPolicy[];
}

declare module "../../types.js" {
  interface AreaStates {
    notifications: { account: NotificationsAccountState };
  }
}
