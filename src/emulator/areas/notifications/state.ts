// An emulated account's notification policies.

/** A notification policy as stored: exactly the fields its answers show, with its UUID id. */
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
