/** Plain data as the diff reads it: object and list tests, and deep equality that ignores descriptions. */

export const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
export const isPrimList = (v: unknown): v is (string | number | boolean)[] => Array.isArray(v) && v.every((x) => x === null || typeof x !== "object");

/** Deep equality of plain data, ignoring descriptions. */
function canon(v: unknown): string {
  return JSON.stringify(v, (k, x) => {
    if (k === "description") return undefined;
    if (x && typeof x === "object" && !Array.isArray(x)) {
      return Object.fromEntries(Object.keys(x).sort().map((key) => [key, (x as Record<string, unknown>)[key]]));
    }
    return x;
  });
}
export const same = (a: unknown, b: unknown) => canon(a) === canon(b);
