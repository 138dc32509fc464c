/**
 * The runtime's share of the output. The runtime itself is hand-written
 * TypeScript (runtime/ in this package), copied verbatim into every output as
 * runtime/*.ts: it is neither rendered nor formatted, and it reads everything
 * about the spec from the descriptor. What is generated here is only what the
 * spec decides: descriptor.ts (the declared data and the generated checks) and
 * thin typed bindings (server.ts, client.ts, store.ts, and the per-request
 * stateless-server.ts / stateless-client.ts) that hand the descriptor to the
 * runtime's classes.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { packageFolder } from "../package-folder.js";
import type { IR } from "../ir.js";
import { descriptorData } from "./descriptor.js";
import type { Emitter, EmitEnv, VirtualFile } from "./emitter.js";

/** The runtime files only a spec with a per-request lifecycle uses (they need @modelcontextprotocol/server 2.x). */
const PER_REQUEST_ONLY = new Set([
  "stateless-client.ts",
  "stateless-dispatch.ts",
  "stateless-input.ts",
  "stateless-server.ts",
  "stateless-stdio.ts",
  "stateless-subscriptions.ts",
]);

/** Where the output keeps its copy of the runtime. */
export const RUNTIME_DIR = "runtime";

export function runtimeSourceDir(): string {
  return packageFolder("runtime", "descriptor.ts");
}

let sources: { name: string; text: string }[] | undefined;

/** The runtime's source files, read once per process. */
export function runtimeSources(): readonly { name: string; text: string }[] {
  if (!sources) {
    const dir = runtimeSourceDir();
    sources = readdirSync(dir)
      .filter((n) => n.endsWith(".ts") && !n.endsWith(".d.ts"))
      .sort()
      .map((name) => ({ name, text: readFileSync(join(dir, name), "utf8") }));
  }
  return sources;
}

/** The version the copied runtime states (RUNTIME_VERSION in runtime/descriptor.ts). */
export function runtimeVersion(): string {
  const d = runtimeSources().find((s) => s.name === "descriptor.ts");
  const m = d && /export const RUNTIME_VERSION = "([^"]+)"/.exec(d.text);
  if (!m) throw new Error("mcp-task-gen: runtime/descriptor.ts states no RUNTIME_VERSION");
  return m[1]!;
}

function perRequest(ir: IR): boolean {
  return (ir.spec.protocol.lifecycle ?? "initialize") === "per-request";
}

/** What the binding templates read: type names and the lifecycle, nothing else of the spec. */
export function bindingView(ir: IR, env: EmitEnv) {
  return { header: env.header, statusType: ir.statusType, taskType: ir.behaviour.taskType, perRequest: perRequest(ir) };
}

/** runtime/*.ts: the runtime, copied verbatim (a spec with an initialize lifecycle gets no stateless files). */
export const runtimeCopyEmitter: Emitter = {
  name: "runtime",
  emit(ir: IR): VirtualFile[] {
    return runtimeSources()
      .filter((s) => perRequest(ir) || !PER_REQUEST_ONLY.has(s.name))
      .map((s) => ({ path: `${RUNTIME_DIR}/${s.name}`, contents: s.text, verbatim: true }));
  },
};

/** descriptor.ts: the spec's data and generated checks, as the runtime reads them. */
export const descriptorEmitter: Emitter = {
  name: "descriptor",
  emit(ir: IR, env: EmitEnv): VirtualFile[] {
    const data = descriptorData(ir);
    return [
      {
        path: "descriptor.ts",
        contents: env.render("descriptor.ts.hbs", {
          ...bindingView(ir, env),
          runtimeVersion: runtimeVersion(),
          spec: data.spec,
          states: data.states,
          errors: data.errors,
          methods: data.methods,
          taskFields: data.taskFields,
          taskExtras: data.taskExtras,
          creationSchema: data.creationSchema,
          taskSchema: `${ir.behaviour.taskType}Schema`,
        }),
      },
    ];
  },
};

function binding(name: string, template: string, path: string, only?: (ir: IR) => boolean): Emitter {
  return {
    name,
    emit(ir: IR, env: EmitEnv): VirtualFile[] {
      if (only && !only(ir)) return [];
      return [{ path, contents: env.render(template, bindingView(ir, env)) }];
    },
  };
}

/** The runtime emitters, in output order. */
export const RUNTIME_EMITTERS: readonly Emitter[] = [
  descriptorEmitter,
  binding("store", "store.ts.hbs", "store.ts"),
  binding("server", "server.ts.hbs", "server.ts"),
  binding("client", "client.ts.hbs", "client.ts"),
  binding("stateless-server", "stateless-server.ts.hbs", "stateless-server.ts", perRequest),
  binding("stateless-client", "stateless-client.ts.hbs", "stateless-client.ts", perRequest),
  runtimeCopyEmitter,
];
