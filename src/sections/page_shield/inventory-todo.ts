// The mark a drafted justification carries until a person writes it.
// Spec: docs/pci-script-inventory.md.

/** What a drafted entry's justification says until a person writes it. */
export const TODO_JUSTIFICATION = "TODO: why this script is needed on the payment page";

export function isTodoJustification(j: string): boolean {
  return /^\s*TODO\b/i.test(j);
}
