/**
 * The data half of the runtime descriptor: what the spec decides that the
 * runtime reads (states and roles, the error catalog, methods, the task's
 * fields), computed from the IR. The emitter writes it into descriptor.ts as
 * JSON literals; tests use it to build descriptors without generating.
 */
import type { TypeExpr } from "../format.js";
import type { IR, IRType } from "../ir.js";
import type { Operation } from "../operations.js";
import { managedTaskFields, namedTypeOf } from "../task-shape.js";

export interface DescriptorData {
  spec: { id: string; sha256: string; protocol: { name: string; revision: string; protocolVersion?: string; lifecycle?: string } };
  states: { all: string[]; initial: string; terminal: string[]; roles: Record<string, string>; roleOf: Record<string, string> };
  errors: Record<string, { code: number; message: string; context: Record<string, string | number | boolean>; httpStatus?: number; dataField?: string }>;
  methods: { method: string; kind: "request" | "notification"; from: "client" | "server" | "either"; operation?: Operation; to?: string }[];
  taskFields: string[];
  /** The task's own fields (those no behaviour gives a meaning to), with the value a new task starts with (null: none). */
  taskExtras: Record<string, unknown>;
  /** The validator of the task request (the creation param or meta entry), where it names a declared type. */
  creationSchema?: string;
}

/** The name of the declared type a spec type expression names directly, if any. */
function namedExpr(ir: IR, t: TypeExpr | undefined): string | undefined {
  const name = namedTypeOf(t);
  return name !== undefined && ir.types.some((d) => d.name === name) ? name : undefined;
}

/** The name of the declared type a type expression names directly, if any. */
function namedType(ir: IR, t: IRType | undefined): string | undefined {
  return t !== undefined && t.kind === "ref" && ir.types.some((d) => d.name === t.name) ? t.name : undefined;
}

function defaultOf(t: IRType): string | number | boolean {
  switch (t.kind) {
    case "integer":
    case "number":
      return 0;
    case "boolean":
      return false;
    default:
      return "";
  }
}

function resolve(ir: IR, t: IRType): IRType {
  for (let i = 0; i < 32 && t.kind === "ref"; i++) {
    const name = t.name;
    const decl = ir.types.find((d) => d.name === name);
    if (!decl) break;
    t = decl.type;
  }
  return t;
}

function objectFieldDecls(ir: IR, typeName: string) {
  const d = ir.types.find((t) => t.name === typeName);
  if (!d) return [];
  const t = resolve(ir, d.type);
  return t.kind === "object" ? t.fields : [];
}

function objectFields(ir: IR, typeName: string): string[] {
  return objectFieldDecls(ir, typeName).map((f) => f.name);
}

export function descriptorData(ir: IR): DescriptorData {
  const p = ir.spec.protocol;
  const taskTypeName = objectFields(ir, ir.behaviour.taskType).length ? ir.behaviour.taskType : "Task";
  const taskFields = objectFields(ir, "Task").length ? objectFields(ir, "Task") : objectFields(ir, ir.behaviour.taskType);
  const managed = managedTaskFields(ir.behaviour);
  const taskExtras: Record<string, unknown> = {};
  for (const f of objectFieldDecls(ir, taskTypeName)) if (!managed.has(f.name)) taskExtras[f.name] = f.default === undefined ? null : f.default;
  const cr = ir.behaviour.creation;
  const creationType =
    cr.via === "param" ? namedExpr(ir, cr.paramType) : cr.via === "meta" ? namedType(ir, ir.meta.find((m) => m.name === cr.meta)?.type) : undefined;
  const errors: DescriptorData["errors"] = {};
  for (const e of ir.errors) {
    const data = e.data === undefined ? undefined : resolve(ir, e.data);
    const dataField = data !== undefined && data.kind === "object" && data.fields.length > 0 ? data.fields[0]!.name : undefined;
    errors[e.name] = {
      code: e.code,
      message: e.message,
      context: Object.fromEntries(e.context.map((c) => [c.name, defaultOf(c.type)])),
      ...(e.http === undefined ? {} : { httpStatus: e.http }),
      ...(dataField === undefined ? {} : { dataField }),
    };
  }
  return {
    spec: {
      id: ir.spec.name,
      sha256: ir.spec.hash,
      protocol: {
        name: p.name,
        revision: p.revision,
        ...(p.protocolVersion === undefined ? {} : { protocolVersion: p.protocolVersion }),
        ...(p.lifecycle === undefined ? {} : { lifecycle: p.lifecycle }),
      },
    },
    states: {
      all: ir.states.map((s) => s.name),
      initial: ir.initialState,
      terminal: [...ir.terminalStates],
      roles: { ...ir.roles },
      roleOf: Object.fromEntries(ir.states.map((s) => [s.name, s.role])),
    },
    errors,
    methods: ir.methods.map((m) => ({
      method: m.method,
      kind: m.kind,
      from: m.from,
      ...(m.operation === undefined ? {} : { operation: m.operation }),
      ...(m.to === undefined ? {} : { to: m.to }),
    })),
    taskFields,
    taskExtras,
    ...(creationType === undefined ? {} : { creationSchema: `${creationType}Schema` }),
  };
}
