/**
 * Descriptors of the built-in specs for the runtime's unit tests: the data
 * from the compiler (as descriptor.ts would hold it) with the generated checks
 * of output-samples/ (transition table, guards, validators). No file is
 * generated to build them.
 */
import { fileURLToPath } from "node:url";
import { descriptorData } from "../../generator/emit/descriptor.js";
import { analyze } from "../../generator/pipeline.js";
import { resolveSpec } from "../../generator/specs.js";
import { RUNTIME_VERSION, type TaskSpecDescriptor } from "../../runtime/descriptor.js";
import type { Behaviour } from "../../runtime/behaviour.js";

export const BUILTIN = ["sep-1686-draft", "mcp-2025-11-25", "ext-tasks-2026-07-28"] as const;
export type BuiltinSpec = (typeof BUILTIN)[number];

interface Generated {
  transitions: { canTransition: Function; assertTransition: Function; isTerminal: Function; TRANSITIONS: unknown; TRANSITION_GUARDS: unknown };
  guards: { requestGuards: Record<string, { params: (p: unknown) => boolean }> };
  validators: Record<string, unknown> & { validateRequestParams: Function };
  protocol: { BEHAVIOUR: unknown; META_KEYS: Record<string, string> };
}

const cache = new Map<string, TaskSpecDescriptor>();

/** The descriptor of a built-in spec. */
export async function descriptorOf(spec: BuiltinSpec): Promise<TaskSpecDescriptor> {
  const hit = cache.get(spec);
  if (hit) return hit;
  const resolved = resolveSpec(spec);
  if (!resolved.ok) throw new Error(`unknown spec ${spec}`);
  const ir = analyze(resolved.source).ir;
  if (!ir) throw new Error(`spec ${spec} does not compile`);
  const data = descriptorData(ir);
  const base = new URL(`../../output-samples/${spec}/`, import.meta.url);
  const load = async (name: string) => import(fileURLToPath(new URL(`${name}.ts`, base)));
  const g: Generated = {
    transitions: await load("transitions"),
    guards: await load("guards"),
    validators: await load("validators"),
    protocol: await load("protocol"),
  };
  const taskSchema = g.validators[`${ir.behaviour.taskType}Schema`] as { safeParse(v: unknown): never };
  const { creationSchema, ...rest } = data;
  const creation = creationSchema === undefined ? undefined : (g.validators[creationSchema] as { safeParse(v: unknown): never });
  const d: TaskSpecDescriptor = {
    ...rest,
    spec: data.spec as TaskSpecDescriptor["spec"],
    states: data.states as TaskSpecDescriptor["states"],
    runtimeVersion: RUNTIME_VERSION,
    behaviour: g.protocol.BEHAVIOUR as Behaviour,
    meta: g.protocol.META_KEYS,
    machine: { ...(g.transitions as unknown as TaskSpecDescriptor["machine"]), table: g.transitions.TRANSITIONS as TaskSpecDescriptor["machine"]["table"], guards: g.transitions.TRANSITION_GUARDS as TaskSpecDescriptor["machine"]["guards"] },
    requestGuards: g.guards.requestGuards,
    validateParams: (method, params) => (g.validators.validateRequestParams as (m: string, p: unknown) => never)(method, params),
    validateTask: (value) => taskSchema.safeParse(value),
    ...(creation === undefined ? {} : { validateCreation: (value: unknown) => creation.safeParse(value) }),
  };
  cache.set(spec, d);
  return d;
}
