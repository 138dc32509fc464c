/**
 * The runtime's share of the output. The runtime itself is hand-written
 * TypeScript, the package @mcp-task-gen/runtime (runtime/ in this repository),
 * which generated code imports: it reads everything about the spec from the
 * descriptor. What is generated here is only what the spec decides:
 * descriptor.ts (the declared data and the generated checks) and thin typed
 * bindings (server.ts, client.ts, store.ts, and the per-request
 * stateless-server.ts / stateless-client.ts) that hand the descriptor to the
 * runtime's classes.
 */
import type { IR } from "../ir.js";
import { RUNTIME_VERSION } from "../version.js";
import { descriptorData } from "./descriptor.js";
import type { Emitter, EmitEnv, VirtualFile } from "./emitter.js";

function perRequest(ir: IR): boolean {
  return (ir.spec.protocol.lifecycle ?? "initialize") === "per-request";
}

/** What the binding templates read: type names and the lifecycle, nothing else of the spec. */
export function bindingView(ir: IR, env: EmitEnv) {
  return { header: env.header, statusType: ir.statusType, taskType: ir.behaviour.taskType, perRequest: perRequest(ir) };
}

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
          runtimeVersion: RUNTIME_VERSION,
          spec: data.spec,
          states: data.states,
          errors: data.errors,
          methods: data.methods,
          taskFields: data.taskFields,
          taskExtras: data.taskExtras,
          creationSchema: data.creationSchema,
          paging: data.paging,
          fieldBounds: data.fieldBounds,
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
];
