/**
 * The data half of the runtime descriptor: what the spec decides that the
 * runtime reads (states and roles, the error catalog, methods, the task's
 * fields), computed from the IR. The emitter writes it into descriptor.ts as
 * JSON literals; tests use it to build descriptors without generating.
 */
import type { IR, IRType } from "../ir.js";

export interface DescriptorData {
  spec: { id: string; sha256: string; protocol: { name: string; revision: string; protocolVersion?: string; lifecycle?: string } };
  states: { all: string[]; initial: string; terminal: string[]; roles: Record<string, string> };
  errors: Record<string, { code: number; message: string; context: Record<string, string | number | boolean>; httpStatus?: number; dataField?: string }>;
  methods: { method: string; kind: "request" | "notification"; from: "client" | "server" | "either" }[];
  taskFields: string[];
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

function objectFields(ir: IR, typeName: string): string[] {
  const d = ir.types.find((t) => t.name === typeName);
  if (!d) return [];
  const t = resolve(ir, d.type);
  return t.kind === "object" ? t.fields.map((f) => f.name) : [];
}

export function descriptorData(ir: IR): DescriptorData {
  const p = ir.spec.protocol;
  const taskFields = objectFields(ir, "Task").length ? objectFields(ir, "Task") : objectFields(ir, ir.behaviour.taskType);
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
    },
    errors,
    methods: ir.methods.map((m) => ({ method: m.method, kind: m.kind, from: m.from })),
    taskFields,
  };
}
