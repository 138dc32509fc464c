/**
 * The words of the spec format that code reading a lowered spec needs too (the lowering, the emitters'
 * helpers): kept apart from format.ts, whose zod schema only the checker needs, so that emitting a spec's
 * IR loads no zod.
 */

/**
 * Shorthand: a primitive (`string`, `integer`, `number`, `boolean`, `null`,
 * `unknown`, `object`), or the name of a declared type; a trailing `[]` makes
 * an array and, for fields only, a trailing `?` makes the field optional.
 */
export const SHORTHAND_RE = /^([A-Za-z_][A-Za-z0-9_]*)((?:\[\])*)(\?)?$/;
export const PRIMITIVES = ["string", "integer", "number", "boolean", "null", "unknown", "object"] as const;
