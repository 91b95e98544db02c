// Orders a zone's changes: make before break.
import type { Change } from "../model/index.js";

export function orderChanges(changes: Change[], kindOrder: (resource: string) => number): Change[] {
  const indexed = changes.map((c, i) => ({ c, i }));
  const phase = (c: Change) => (c.kind === "delete" ? 1 : 0);
  indexed.sort((a, b) => {
    const pa = phase(a.c);
    const pb = phase(b.c);
    if (pa !== pb) return pa - pb;
    const ka = kindOrder(a.c.resource);
    const kb = kindOrder(b.c.resource);
    if (ka !== kb) return pa === 1 ? kb - ka : ka - kb;
    return a.i - b.i;
  });
  return indexed.map((x) => x.c);
}
