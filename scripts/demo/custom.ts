/**
 * The spec's custom operations on the demo: each is answered with a value of its declared result type,
 * carrying what it was asked and the task it names where the type has room for them (so any spec's custom
 * operations can be tried on it).
 */
import { type DemoRuntime, usage } from "./common.js";

/**
 * Answers of the spec's declared result types, from its IR (loaded only for a spec with custom
 * operations): the smallest value of the type, with the fields it shares with the params copied from
 * them and a field of the task type holding the task; an open type also echoes the method, params and task.
 */
async function customAnswers(spec: string): Promise<{ value: (method: string, params: Record<string, unknown>, task: unknown) => unknown }> {
  const { analyze } = await import("../../generator/pipeline.js");
  const { resolveSpec } = await import("../../generator/specs.js");
  const { minimalValue } = await import("../../generator/conform/schemas.js");
  const r = resolveSpec(spec, process.cwd());
  const ir = r.ok ? analyze(r.source).ir : undefined;
  if (ir === undefined) usage(`the spec ${spec} did not compile`);
  type T = NonNullable<(typeof ir.methods)[number]["result"]>;
  const resolveRef = (t: T): T => {
    for (let i = 0; t.kind === "ref" && i < 16; i++) {
      const name: string = t.name;
      const d = ir.types.find((x) => x.name === name);
      if (d === undefined) break;
      t = d.type;
    }
    return t;
  };
  const taskType = ir.behaviour.taskType;
  return {
    value(method, params, task) {
      const decl = ir.methods.find((m) => m.method === method);
      if (decl?.result === undefined) return {};
      const base = minimalValue(ir, decl.result);
      const shape = resolveRef(decl.result);
      if (shape.kind !== "object" || typeof base !== "object" || base === null) return base;
      // An open result type has room for an echo of the call: what the server's code was asked, and the task.
      const out: Record<string, unknown> = shape.open ? { operation: method, params, ...(task === undefined ? {} : { task }) } : {};
      Object.assign(out, base as Record<string, unknown>);
      for (const f of shape.fields) {
        if (f.type.kind === "ref" && f.type.name === taskType && task !== undefined) out[f.name] = task;
        else if (Object.prototype.hasOwnProperty.call(params, f.name)) out[f.name] = params[f.name];
      }
      return out;
    },
  };
}

/** Adds an answer to each custom operation of the spec to the runtime (none where the spec declares none). */
export async function addCustomOperations(runtime: DemoRuntime, spec: string): Promise<void> {
  if (runtime.plan.custom.length === 0) return;
  const answers = await customAnswers(spec);
  const idField = runtime.plan.idField;
  for (const method of runtime.plan.custom) {
    runtime.addOperations({
      [method]: async (params, ctx) => {
        const id = params[idField];
        const task = typeof id === "string" ? await ctx.task(id) : undefined;
        const rich = answers.value(method, params, task);
        const fits = (v: unknown) => runtime.descriptor.validateResult?.(method, v).success !== false;
        return (fits(rich) ? rich : answers.value(method, {}, undefined)) as never;
      },
    });
  }
}
