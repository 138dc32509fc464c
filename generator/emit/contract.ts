/**
 * The handler contract: `handlers.ts`, what a server's own code must provide,
 * derived from the spec's declared behaviour. Its `ServerHandlers` interface
 * has a member per request kind that may run as a task
 * (behaviour.creation.requests.server), its `HandlerContext` a method per
 * request a handler may send to ask for input (behaviour.input.requests), its
 * `ToolDefinition` a `taskSupport` member when the spec has a per-tool switch
 * (behaviour.creation.toolSwitch). `installHandlers` wires an implementation
 * into the generated runtime (server.ts).
 *
 * When the spec changes, these types change with it, so the user's code fails
 * to type-check where it must change. The model (`contractOf`) is shared with
 * generator/update-user-files.ts, which adds stubs for new members to the
 * user's class and marks members that are gone.
 */
import type { IR } from "../ir.js";
import { descriptorData } from "./descriptor.js";
import { jsString, jsValue } from "./escape.js";
import type { Emitter, EmitEnv, VirtualFile } from "./emitter.js";

/** The file the contract is emitted to, in the output directory. */
export const CONTRACT_FILE = "handlers.ts";

/** Names a stub may need from the contract module that are values (the rest are imported as types). */
export const STUB_VALUE_IMPORTS: ReadonlySet<string> = new Set(["notImplemented", "defineTool"]);

export interface ContractMember {
  /** The member name in ServerHandlers (and in the user's class). */
  name: string;
  /** The request it answers. */
  method: string;
  /** Whether its requests may run as tasks under this spec. */
  task: boolean;
  /** Its declaration in the ServerHandlers interface (without doc). */
  signature: string;
  /** One-line description. */
  doc: string;
  /** A class member that satisfies it (lines, unindented). */
  stub: string[];
  /** Names the stub needs from the contract module. */
  imports: string[];
}

export interface ContextMember {
  name: string;
  /** The request it sends to the requestor. */
  method: string;
  signature: string;
  doc: string;
}

/** The spec-specific member of ToolDefinition: whether a call may run as a task. */
export interface ToolMember {
  /** The ToolDefinition member (the last segment of the declared field, or taskSupport). */
  member: string;
  /** Required when the spec has a per-tool switch (behaviour.creation.toolSwitch); optional when the receiver decides. */
  required: boolean;
  /** The declared dotted field in the Tool definition that tools/list carries, e.g. execution.taskSupport. */
  field: string | undefined;
  values: readonly string[];
  /** The spec's default, with a per-tool switch. */
  default: string | undefined;
}

export interface Contract {
  spec: string;
  /** Requests a server receives that may become tasks, as declared ("*" kept). */
  declared: readonly string[];
  /** The ServerHandlers members, in order. */
  members: ContractMember[];
  context: ContextMember[];
  tool: ToolMember | undefined;
  /**
   * protocol.lifecycle: initialize (handlers are installed on an SDK `Server`:
   * installHandlers) or per-request (they are added to the runtime that the
   * stateless binding serves: addHandlers).
   */
  lifecycle: "initialize" | "per-request";
}

interface Group {
  /** The request that may run as a task. */
  method: string;
  members: (spec: string) => Omit<ContractMember, "task">[];
}

const stubNote = (spec: string, what: string) => `// TODO(mcp-task-gen): stub added for spec ${spec}; ${what}`;

/** Every request kind the contract knows, with the members that serve it. */
const GROUPS: readonly Group[] = [
  {
    method: "tools/call",
    members: (spec) => [
      {
        name: "tools",
        method: "tools/call",
        signature: "readonly tools: readonly ToolDefinition[];",
        doc: "tools/list and tools/call: the tools (one file each, made with defineTool).",
        stub: [stubNote(spec, "list your tools (defineTool) here."), "readonly tools: readonly ToolDefinition[] = [];"],
        imports: ["ToolDefinition"],
      },
    ],
  },
  {
    method: "resources/read",
    members: (spec) => [
      {
        name: "listResources",
        method: "resources/list",
        signature: "listResources(request: ListResourcesRequest): Promise<ListResourcesResult>;",
        doc: "resources/list: the resources readResource serves.",
        stub: [
          "async listResources(): Promise<ListResourcesResult> {",
          `  ${stubNote(spec, "list your resources.")}`,
          "  return { resources: [] };",
          "}",
        ],
        imports: ["ListResourcesResult"],
      },
      {
        name: "readResource",
        method: "resources/read",
        signature: "readResource(request: ReadResourceRequest, ctx: HandlerContext): Promise<ReadResourceResult>;",
        doc: "resources/read.",
        stub: [
          "async readResource(request: ReadResourceRequest, _ctx: HandlerContext): Promise<ReadResourceResult> {",
          `  ${stubNote(spec, "read request.params.uri.")}`,
          '  throw notImplemented("readResource", request.params.uri);',
          "}",
        ],
        imports: ["HandlerContext", "notImplemented", "ReadResourceRequest", "ReadResourceResult"],
      },
    ],
  },
  {
    method: "prompts/get",
    members: (spec) => [
      {
        name: "listPrompts",
        method: "prompts/list",
        signature: "listPrompts(request: ListPromptsRequest): Promise<ListPromptsResult>;",
        doc: "prompts/list: the prompts getPrompt serves.",
        stub: [
          "async listPrompts(): Promise<ListPromptsResult> {",
          `  ${stubNote(spec, "list your prompts.")}`,
          "  return { prompts: [] };",
          "}",
        ],
        imports: ["ListPromptsResult"],
      },
      {
        name: "getPrompt",
        method: "prompts/get",
        signature: "getPrompt(request: GetPromptRequest, ctx: HandlerContext): Promise<GetPromptResult>;",
        doc: "prompts/get.",
        stub: [
          "async getPrompt(request: GetPromptRequest, _ctx: HandlerContext): Promise<GetPromptResult> {",
          `  ${stubNote(spec, "answer request.params.name.")}`,
          '  throw notImplemented("getPrompt", request.params.name);',
          "}",
        ],
        imports: ["GetPromptRequest", "GetPromptResult", "HandlerContext", "notImplemented"],
      },
    ],
  },
];

/** Every ServerHandlers member any spec can have (members of the user's class outside this set are the user's own). */
export const KNOWN_MEMBERS: readonly string[] = GROUPS.flatMap((g) => g.members("").map((m) => m.name));

/** ToolDefinition members any spec can have (besides name, title, description, inputSchema, handler). */
export const KNOWN_TOOL_MEMBERS: readonly string[] = ["taskSupport"];

const CONTEXT: readonly ContextMember[] = [
  {
    name: "elicit",
    method: "elicitation/create",
    signature: 'elicit(params: ElicitRequest["params"]): Promise<ElicitResult>;',
    doc: "Asks the requestor for input (elicitation/create); a task is input_required until it is answered.",
  },
  {
    name: "sample",
    method: "sampling/createMessage",
    signature: 'sample(params: CreateMessageRequest["params"]): Promise<CreateMessageResult>;',
    doc: "Asks the requestor's model (sampling/createMessage); a task is input_required meanwhile.",
  },
  {
    name: "listRoots",
    method: "roots/list",
    signature: 'listRoots(params?: ListRootsRequest["params"]): Promise<ListRootsResult>;',
    doc: "Asks the requestor for its roots (roots/list).",
  },
];

/** The contract of a spec. */
export function contractOf(ir: IR): Contract {
  const b = ir.behaviour;
  const declared = b.creation.requests.server;
  const any = declared.includes("*");
  const members = GROUPS.filter((g) => any || declared.includes(g.method)).flatMap((g) =>
    g.members(ir.spec.name).map((m) => ({ ...m, task: m.method === g.method })),
  );
  const context = CONTEXT.filter((c) => b.input !== false && b.input.requests.includes(c.method));
  const ts = b.creation.toolSwitch;
  const tool: ToolMember | undefined =
    ts !== false
      ? { member: ts.field.split(".").pop()!, required: true, field: ts.field, values: ts.values, default: ts.default }
      : b.creation.decidedBy === "receiver"
        ? { member: "taskSupport", required: false, field: undefined, values: ["forbidden", "optional", "required"], default: undefined }
        : undefined;
  const lifecycle = ir.spec.protocol.lifecycle ?? "initialize";
  // The spec's custom operations: answered by the server's own code, one member each.
  for (const m of ir.methods) {
    if (m.kind !== "request" || m.operation !== "custom") continue;
    const stem = m.name[0]!.toLowerCase() + m.name.slice(1);
    const name = KNOWN_MEMBERS.includes(stem) || members.some((x) => x.name === stem) ? `${stem}Operation` : stem;
    const key = jsString(m.method);
    const types = `CustomOperations[${key}]`;
    members.push({
      name,
      method: m.method,
      task: false,
      signature: `${name}(params: ${types}["params"], ctx: OperationContext): Promise<${types}["result"]>;`,
      doc: `${m.method}: a custom operation of the spec, answered by this code.`,
      stub: [
        `async ${name}(params: ${types}["params"], _ctx: OperationContext): Promise<${types}["result"]> {`,
        `  ${stubNote(ir.spec.name, `answer ${m.method}.`)}`,
        `  throw notImplemented(${jsString(name)}, JSON.stringify(params));`,
        "}",
      ],
      imports: ["CustomOperations", "OperationContext", "notImplemented"],
    });
  }
  return { spec: ir.spec.name, declared, members, context, tool, lifecycle };
}

/** The marker put above a member of the user's code that is no longer part of the contract. */
export function removedMarker(name: string, spec: string, where = "contract"): string {
  return `// mcp-task-gen: '${name}' is no longer part of the ${where} of spec ${spec}; remove it or keep it as plain code`;
}

/** The marker put above a tool that lacks a member the contract now asks for. */
export function missingToolMemberMarker(ts: ToolMember, spec: string): string {
  return `// mcp-task-gen: spec ${spec} asks every tool for '${ts.member}' (${ts.values.map((v) => jsString(v)).join(" | ")}); declare it in this tool`;
}

/** Matches any marker line of ours (so that it can be replaced or removed when obsolete). */
export const MARKER_RE = /^[ \t]*\/\/ mcp-task-gen: .*$/;

export function contractView(ir: IR, env: EmitEnv) {
  const c = contractOf(ir);
  const has = (name: string) => c.members.some((m) => m.name === name);
  return {
    header: env.header,
    spec: c.spec,
    declaredJson: jsValue(c.declared),
    inputJson: jsValue(ir.behaviour.input === false ? [] : ir.behaviour.input.requests),
    taskRequests: c.members.filter((m) => m.task).map((m) => m.method),
    taskRequestsJson: jsValue(c.members.filter((m) => m.task).map((m) => m.method)),
    membersJson: jsValue(c.members.map((m) => m.name)),
    contextJson: jsValue(c.context.map((m) => m.name)),
    toolMembersJson: jsValue(c.tool ? [c.tool.member] : []),
    members: c.members.map((m) => ({ ...m, doc: `${m.doc}${m.task ? ` May run as a task (behaviour.creation.requests.server).` : ""}` })),
    context: c.context,
    hasContext: c.context.length > 0,
    tools: has("tools"),
    resources: has("readResource"),
    prompts: has("getPrompt"),
    listRoots: c.context.some((m) => m.name === "listRoots"),
    elicit: c.context.some((m) => m.name === "elicit"),
    sample: c.context.some((m) => m.name === "sample"),
    tool: c.tool
      ? {
          ...c.tool,
          optional: !c.tool.required,
          union: c.tool.values.map((v) => jsString(v)).join(" | "),
          defaultJson: jsValue(c.tool.default),
        }
      : undefined,
    requestHandlers: has("readResource") || has("getPrompt"),
    ...workFieldsView(ir),
    operations: ir.methods
      .filter((m) => m.kind === "request" && m.operation === "custom")
      .map((m) => ({
        key: jsString(m.method),
        member: c.members.find((x) => x.method === m.method && !x.task)!.name,
        params: m.paramsName === undefined ? "Record<string, unknown>" : `T.${m.paramsName}`,
        result: m.resultName === undefined ? "Record<string, unknown>" : `T.${m.resultName}`,
      })),
    lifecycle: c.lifecycle,
    initialize: c.lifecycle === "initialize",
    perRequest: c.lifecycle === "per-request",
  };
}

/** The task's own fields, set by its work (descriptor.ts's taskExtras), and their type in handlers.ts. */
function workFieldsView(ir: IR) {
  const fields = Object.keys(descriptorData(ir).taskExtras);
  // The type the descriptor reads them from: the task type when it is an object, else a type named Task.
  const isObject = (name: string) => {
    let t = ir.types.find((d) => d.name === name)?.type;
    for (let i = 0; i < 32 && t?.kind === "ref"; i++) {
      const ref = t.name;
      t = ir.types.find((d) => d.name === ref)?.type;
    }
    return t?.kind === "object" && t.fields.length > 0;
  };
  const typeName = [ir.behaviour.taskType, "Task"].find(isObject);
  const hasOps = ir.methods.some((m) => m.kind === "request" && m.operation === "custom");
  return {
    workFields: fields,
    taskType: typeName ?? ir.behaviour.taskType,
    workFieldsType:
      fields.length === 0 || typeName === undefined ? "Record<string, never>" : `Partial<Pick<T.${typeName}, ${fields.map((f) => jsString(f)).join(" | ")}>>`,
    typesImport: hasOps || (fields.length > 0 && typeName !== undefined),
  };
}

export const contractEmitter: Emitter = {
  name: "contract",
  emit(ir: IR, env: EmitEnv): VirtualFile[] {
    return [{ path: CONTRACT_FILE, contents: env.render("handlers.ts.hbs", contractView(ir, env)) }];
  },
};
