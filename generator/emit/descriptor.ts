/**
 * The data half of the runtime descriptor: what the spec decides that the
 * runtime reads (states and roles, the error catalog, methods, the task's
 * fields), computed from the IR. The emitter writes it into descriptor.ts as
 * JSON literals; tests use it to build descriptors without generating.
 */
import type { TypeExpr } from "../format.js";
import type { IR, IRMethod, IRType } from "../ir.js";
import type { Operation } from "../operations.js";
import { managedTaskFields, namedTypeOf } from "../task-shape.js";

export interface DescriptorData {
  spec: { id: string; sha256: string; protocol: { name: string; revision: string; protocolVersion?: string; lifecycle?: string } };
  states: { all: string[]; initial: string; terminal: string[]; roles: Record<string, string>; roleOf: Record<string, string> };
  errors: Record<string, ErrorData>;
  methods: { method: string; kind: "request" | "notification"; from: "client" | "server" | "either"; operation?: Operation; to?: string }[];
  taskFields: string[];
  /** The task's own fields (those no behaviour gives a meaning to), with the value a new task starts with (null: none). */
  taskExtras: Record<string, unknown>;
  /** The validator of the task request (the creation param or meta entry), where it names a declared type. */
  creationSchema?: string;
  /** The list method's paging fields, where the spec names them other than MCP's cursor / nextCursor. */
  paging?: { cursor: string; nextCursor: string };
  /** The bounds the task type declares on its numeric fields (those with any). */
  fieldBounds?: Record<string, { minimum?: number; maximum?: number }>;
}

/** What a task value is, for a context entry or a data field that names one. */
type TaskValue = "taskId" | "status";

export interface ErrorData {
  code: number;
  message: string;
  context: Record<string, string | number | boolean>;
  /** The context entries that are the addressed task's id or status (filled from them when a caller has none). */
  task?: Record<string, TaskValue>;
  httpStatus?: number;
  dataField?: string;
  /** The fields of a declared object `data`: each with the value used when nothing fills it, whether required, and the task value it is. */
  data?: Record<string, { value: unknown; required: boolean; task?: TaskValue }>;
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
    case "literal":
      return t.value;
    case "enum":
      return t.values[0] ?? "";
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

/** A JSON value of type `t` for a required data field nothing fills (its type's simplest value). */
function emptyOf(ir: IR, t: IRType): unknown {
  const r = resolve(ir, t);
  if (r.nullable) return null;
  switch (r.kind) {
    case "object":
      return Object.fromEntries(r.fields.filter((f) => !f.optional).map((f) => [f.name, emptyOf(ir, f.type)]));
    case "array":
      return [];
    case "record":
    case "unknown":
      return {};
    case "union":
      return r.variants.length > 0 ? emptyOf(ir, r.variants[0]!) : null;
    case "null":
      return null;
    case "integer":
    case "number":
      return r.minimum ?? 0;
    default:
      return defaultOf(r);
  }
}

/** Whether `t` names the status enum or is a string the task's id fits (the field's name says which). */
function taskValueOf(ir: IR, name: string, t: IRType): TaskValue | undefined {
  if (t.kind === "ref" && t.name === ir.statusType) return "status";
  const idField = ir.behaviour.taskIdField ?? "taskId";
  if ((name === idField || name === "taskId") && resolve(ir, t).kind === "string") return "taskId";
  if ((name === (ir.behaviour.statusField ?? "status") || name === "status") && resolve(ir, t).kind === "string") return "status";
  return undefined;
}

/** The list method's paging fields: MCP's names (cursor, nextCursor) where its types have them, else the one string field each declares. */
export function pagingFields(ir: IR, list?: IRMethod): { cursor: string; nextCursor: string } {
  const listing = ir.behaviour.listing;
  if (listing === false && list === undefined) return { cursor: "cursor", nextCursor: "nextCursor" };
  const m = list ?? ir.methods.find((x) => listing !== false && x.method === listing.method);
  const fieldsOf = (t: IRType | undefined) => {
    const r = t === undefined ? undefined : resolve(ir, t);
    return r !== undefined && r.kind === "object" ? r.fields : [];
  };
  const pick = (t: IRType | undefined, mcp: string, skip: readonly string[]) => {
    const fields = fieldsOf(t);
    if (fields.length === 0 || fields.some((f) => f.name === mcp)) return mcp;
    const strings = fields.filter((f) => !skip.includes(f.name) && resolve(ir, f.type).kind === "string");
    return strings.length === 1 ? strings[0]!.name : mcp;
  };
  return { cursor: pick(m?.params, "cursor", ["_meta"]), nextCursor: pick(m?.result, "nextCursor", ["_meta", "tasks"]) };
}

/** The paging fields where they are not MCP's. */
function pagingOf(ir: IR): DescriptorData["paging"] {
  const p = pagingFields(ir);
  return p.cursor === "cursor" && p.nextCursor === "nextCursor" ? undefined : p;
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
    const task = Object.fromEntries(
      e.context.map((c) => [c.name, taskValueOf(ir, c.name, c.type)] as const).filter((x): x is [string, TaskValue] => x[1] !== undefined),
    );
    const dataFields =
      data !== undefined && data.kind === "object" && data.fields.length > 0
        ? Object.fromEntries(
            data.fields.map((f) => {
              const tv = taskValueOf(ir, f.name, f.type);
              return [f.name, { value: emptyOf(ir, f.type), required: !f.optional, ...(tv === undefined ? {} : { task: tv }) }];
            }),
          )
        : undefined;
    errors[e.name] = {
      code: e.code,
      message: e.message,
      context: Object.fromEntries(e.context.map((c) => [c.name, defaultOf(c.type)])),
      ...(Object.keys(task).length === 0 ? {} : { task }),
      ...(e.http === undefined ? {} : { httpStatus: e.http }),
      ...(dataField === undefined ? {} : { dataField }),
      ...(dataFields === undefined ? {} : { data: dataFields }),
    };
  }
  const fieldBounds: NonNullable<DescriptorData["fieldBounds"]> = {};
  for (const f of objectFieldDecls(ir, taskTypeName)) {
    const t = resolve(ir, f.type);
    if ((t.kind === "integer" || t.kind === "number") && (t.minimum !== undefined || t.maximum !== undefined)) {
      fieldBounds[f.name] = { ...(t.minimum === undefined ? {} : { minimum: t.minimum }), ...(t.maximum === undefined ? {} : { maximum: t.maximum }) };
    }
  }
  const paging = pagingOf(ir);
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
    ...(paging === undefined ? {} : { paging }),
    ...(Object.keys(fieldBounds).length === 0 ? {} : { fieldBounds }),
  };
}
