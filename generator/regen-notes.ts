/**
 * What a regeneration changed for the server's own code, one line each: the changes of `diff`
 * (generator/diff/) that touch the handler contract, the task's work-set fields or the states, each with
 * its classification for servers and what the handler code must do. Pure: two IRs in, lines out.
 */
import { diffSpecs, type Change } from "./diff/index.js";
import { contractOf } from "./emit/contract.js";
import { descriptorData } from "./emit/descriptor.js";
import type { IR } from "./ir.js";

export interface RegenNote {
  /** contract, fields or states. */
  kind: "contract" | "fields" | "states";
  /** The change as diff words it, with its classification for servers. */
  change: string;
  /** What the handler code must do. */
  todo: string;
}

const workFields = (ir: IR) => new Set(Object.keys(descriptorData(ir).taskExtras));

/** The notes of a regeneration from `oldIR` to `newIR`, in diff's order (contract members by the contract's). */
export function regenNotes(oldIR: IR, newIR: IR): RegenNote[] {
  const d = diffSpecs(oldIR, newIR);
  const out: RegenNote[] = [];
  const classified = (c: Change | undefined, fallback: string) => (c === undefined ? fallback : `${c.summary} (${c.server} for servers)`);

  // The contract: members of ServerHandlers and of HandlerContext that came or went.
  const before = contractOf(oldIR);
  const after = contractOf(newIR);
  const related = (method: string) =>
    d.changes.find((c) => c.path === `methods.${method}` || c.path === `methods["${method}"]`) ??
    d.changes.find((c) => c.path === "behaviour.creation.requests.server" || c.path === "behaviour.input.requests");
  for (const m of after.members) {
    if (before.members.some((x) => x.name === m.name)) continue;
    out.push({
      kind: "contract",
      change: classified(related(m.method), `ServerHandlers gains ${m.name} (${m.method})`),
      todo: `implement ServerHandlers.${m.name} (${m.method}) in your class (with a handlers folder, a stub is added)`,
    });
  }
  for (const m of before.members) {
    if (after.members.some((x) => x.name === m.name)) continue;
    out.push({
      kind: "contract",
      change: classified(related(m.method), `ServerHandlers loses ${m.name} (${m.method})`),
      todo: `remove ${m.name} (${m.method}) from your class (with a handlers folder, it is marked)`,
    });
  }
  const inputChange = d.changes.find((c) => c.path === "behaviour.input.requests" || c.path === "behaviour.input");
  for (const c of after.context) {
    if (!before.context.some((x) => x.name === c.name)) {
      out.push({ kind: "contract", change: classified(inputChange, `HandlerContext gains ${c.name}`), todo: `handlers may now call ctx.${c.name} (${c.method})` });
    }
  }
  for (const c of before.context) {
    if (!after.context.some((x) => x.name === c.name)) {
      out.push({ kind: "contract", change: classified(inputChange, `HandlerContext loses ${c.name}`), todo: `stop calling ctx.${c.name} (${c.method}): the spec no longer lets a handler ask for it` });
    }
  }

  // The work-set fields: ctx.setFields takes exactly these.
  const oldFields = workFields(oldIR);
  const newFields = workFields(newIR);
  const taskTypes = new Set([oldIR.behaviour.taskType, newIR.behaviour.taskType]);
  const seen = new Set<string>();
  for (const c of d.changes) {
    if (c.section !== "fields" || !taskTypes.has(c.subject)) continue;
    const field = c.path.slice(c.path.lastIndexOf(".") + 1);
    if (!oldFields.has(field) && !newFields.has(field)) continue;
    seen.add(field);
    const todo = !newFields.has(field)
      ? `stop setting '${field}' with ctx.setFields (no longer a field of the task's own)`
      : !oldFields.has(field)
        ? `the work may set '${field}' with ctx.setFields`
        : `set '${field}' with ctx.setFields as its new type says`;
    out.push({ kind: "fields", change: `${c.summary} (${c.server} for servers)`, todo });
  }
  for (const f of oldFields) {
    if (!newFields.has(f) && !seen.has(f)) out.push({ kind: "fields", change: `'${f}' is filled by a behaviour now`, todo: `stop setting '${f}' with ctx.setFields` });
  }
  for (const f of newFields) {
    if (!oldFields.has(f) && !seen.has(f)) out.push({ kind: "fields", change: `'${f}' is no longer filled by a behaviour`, todo: `the work may set '${f}' with ctx.setFields` });
  }

  // The states: where the work and custom operations may move a task.
  for (const c of d.changes) {
    if (c.section !== "states" || c.rule === "state.type-name") continue;
    const todo =
      c.rule === "state.added"
        ? `custom operations may move tasks to '${c.subject}' (ctx.move)`
        : c.rule === "state.removed"
          ? `stop moving tasks to '${c.subject}' in custom operations (ctx.move)`
          : `check the code that moves tasks to '${c.subject}' or waits on it`;
    out.push({ kind: "states", change: `${c.summary} (${c.server} for servers)`, todo });
  }
  return out;
}
