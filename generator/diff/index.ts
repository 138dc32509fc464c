/**
 * `mcp-task-gen diff`: what changed between two specs, computed on their IRs
 * (never on the YAML text), each change classified breaking or compatible for a
 * client and for a server, with a one-line migration hint.
 *
 * Pure: `diffSpecs(oldIR, newIR)` returns a `Diff`; `renderDiffMarkdown` and
 * `renderDiffJson` turn it into text; `diffFails` applies `--fail-on`.
 *
 * The parts: `rules.ts` (the catalogue of change rules), `model.ts` (the Diff),
 * `directions.ts` (who produces what), `context.ts` (what the section
 * comparisons share), `values.ts` (comparing two types), one module per spec
 * section (`methods.ts`, `behaviour.ts`, `states.ts`, `errors.ts`, `meta.ts`,
 * `types.ts`), and `render.ts` (Markdown and JSON).
 *
 * ## What "breaking" means
 *
 * A change is **breaking for a side** (client or server) when an implementation of
 * that side written against the old spec must change to conform to the new one;
 * left alone, it fails against a peer that follows the new spec. **Compatible**:
 * it keeps working unchanged, and adopting the change is optional. Descriptions,
 * examples and the spec's own metadata are not compared.
 *
 * ## Producers, consumers and sides
 *
 * Every rule in `RULES` says what a change does to the two parties of the thing it
 * touches, the *producer* and the *consumer*. Who they are depends on the rule's
 * `roles`:
 *
 * | roles   | producer                                   | consumer                         |
 * |---------|--------------------------------------------|----------------------------------|
 * | `data`  | the side that sends the value              | the side that reads it           |
 * | `call`  | the side that sends the method             | the side that handles it         |
 * | `error` | the side that answers with the error       | the side that receives it        |
 * | `task`  | the task receiver (runs tasks, reports status) | the requestor                |
 *
 * Each change carries the `directions` in which its producer → consumer relation
 * holds, worked out from both IRs (their union): method `from`; where a type, meta
 * key or error is used (followed through references); and
 * `behaviour.creation.requests` for task roles. `client-to-server` means the client
 * is the producer. A side's impact is the worst over the directions it takes part
 * in; with no direction known, both are assumed. So "a new required field in a
 * request's params" (rule `field.added.required`: producer breaking, consumer
 * compatible) is breaking for clients and compatible for servers when clients send
 * that request, and breaking for both when either side may send it.
 *
 * ## The JSON shape (`--json`, format `mcp-task-gen.diff/1`)
 *
 * ```
 * {
 *   "format": "mcp-task-gen.diff/1",
 *   "old": { "name", "protocol", "revision", "protocolVersion"?, "status"? },
 *   "new": { ...same... },
 *   "summary": {
 *     "changes": number,
 *     "breaking": { "client": number, "server": number, "any": number },
 *     "sections": { "<section>": { "changes", "breakingForClient", "breakingForServer" }, ... }
 *   },
 *   "changes": [{
 *     "section":  one of SECTIONS,
 *     "rule":     a key of RULES, e.g. "field.removed.required",
 *     "path":     a readable path, e.g. "types.Task.ttl", "methods.tasks/get", "behaviour.results.mode",
 *     "subject":  the named thing it belongs to (type, method, error, meta entry, state,
 *                 "from → to", guard, or the behaviour group such as "results"),
 *     "summary":  one line, Markdown inline code allowed,
 *     "before"?:  JSON: the old value (a type rendered as text, a behaviour value as data),
 *     "after"?:   JSON: the new value; absent for additions (before) and removals (after),
 *     "client":   "breaking" | "compatible",
 *     "server":   "breaking" | "compatible",
 *     "directions": ["client-to-server" | "server-to-client", ...]   (producer → consumer),
 *     "priority": 1..9 (1 = read first),
 *     "hint":     one line: what to do
 *   }, ...]
 * }
 * ```
 * Sections always appear in `SECTIONS` order; changes are ordered by section, then
 * in the order of the specs' declarations. Fields are only ever added to this shape;
 * a change of meaning bumps the format.
 */
import type { IR } from "../ir.js";
import { diffBehaviour } from "./behaviour.js";
import type { Ctx } from "./context.js";
import { usage } from "./directions.js";
import { diffErrors } from "./errors.js";
import { diffMeta } from "./meta.js";
import { diffMethods } from "./methods.js";
import { DIFF_FORMAT, isBreaking, SECTIONS, type Diff, type Section, type SectionCounts, type SpecRef } from "./model.js";
import { B } from "./rules.js";
import { diffStates } from "./states.js";
import { diffTypes } from "./types.js";

export { BEHAVIOUR_RULES, RULES, type Impact, type Roles, type RuleId } from "./rules.js";
export { DIFF_FORMAT, diffFails, isBreaking, SECTION_TITLES, SECTIONS, type Change, type Diff, type Direction, type FailOn, type Section, type SectionCounts, type Side, type SpecRef } from "./model.js";
export { brief, typeText } from "./text.js";
export { renderDiffJson, renderDiffMarkdown, TOP_BREAKING } from "./render.js";

export function diffSpecs(oldIR: IR, newIR: IR): Diff {
  const ctx: Ctx = { old: oldIR, new: newIR, ou: usage(oldIR), nu: usage(newIR), out: [] };
  diffMethods(ctx);
  diffBehaviour(ctx, oldIR.behaviour, newIR.behaviour, "behaviour", undefined);
  diffStates(ctx);
  diffErrors(ctx);
  diffMeta(ctx);
  diffTypes(ctx);
  const order = new Map(SECTIONS.map((s, i) => [s, i]));
  const changes = ctx.out
    .map((c, i) => ({ c, i }))
    .sort((a, b) => order.get(a.c.section)! - order.get(b.c.section)! || a.i - b.i)
    .map(({ c }) => c);
  const sections = Object.fromEntries(
    SECTIONS.map((s) => {
      const cs = changes.filter((c) => c.section === s);
      return [s, { changes: cs.length, breakingForClient: cs.filter((c) => c.client === B).length, breakingForServer: cs.filter((c) => c.server === B).length }];
    }),
  ) as Record<Section, SectionCounts>;
  const ref = (ir: IR): SpecRef => ({
    name: ir.spec.name,
    protocol: ir.spec.protocol.name,
    revision: ir.spec.protocol.revision,
    ...(ir.spec.protocol.protocolVersion === undefined ? {} : { protocolVersion: ir.spec.protocol.protocolVersion }),
    ...(ir.spec.protocol.status === undefined ? {} : { status: ir.spec.protocol.status }),
  });
  return {
    format: DIFF_FORMAT,
    old: ref(oldIR),
    new: ref(newIR),
    summary: {
      changes: changes.length,
      breaking: {
        client: changes.filter((c) => c.client === B).length,
        server: changes.filter((c) => c.server === B).length,
        any: changes.filter(isBreaking).length,
      },
      sections,
    },
    changes,
  };
}
