/**
 * A child process for the fidelity tests: the ext-tasks-2026-07-28 runtime
 * served over stdio by serveStatelessStdio (runtime/stateless-server.ts), built
 * from the descriptor without generating. Tools: `gated_job` (a task that ends
 * when `release` is called with its gate). SIGTERM closes the server (open
 * subscriptions get their closing response), then the process exits.
 */
import { z } from "zod";
import { TaskRuntime } from "../../runtime/server.js";
import { serveStatelessStdio } from "../../runtime/stateless-server.js";
import { descriptorOf } from "../runtime/descriptors.js";

const gates = new Map<string, () => void>();
const released = new Set<string>();
const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });

const runtime = new TaskRuntime(await descriptorOf("ext-tasks-2026-07-28"), { audit: false, log: () => undefined, pollFrequency: 20 } as never);
runtime.addTools([
  {
    name: "gated_job",
    taskSupport: "required" as const,
    inputSchema: z.object({ gate: z.string() }),
    handler: async ({ gate }: { gate: string }) => {
      if (!released.has(gate)) await new Promise<void>((resolve) => gates.set(gate, resolve));
      return text(`done ${gate}`);
    },
  },
  {
    name: "release",
    taskSupport: "forbidden" as const,
    inputSchema: z.object({ gate: z.string() }),
    handler: async ({ gate }: { gate: string }) => {
      released.add(gate);
      gates.get(gate)?.();
      return text(`released ${gate}`);
    },
  },
] as never);
const served = await serveStatelessStdio(runtime, { serverInfo: { name: "stdio-child", version: "1.0.0" }, subscriptionPollMs: 20 });
process.on("SIGTERM", () => {
  void served
    .close()
    .then(() => runtime.close())
    .finally(() => process.exit(0));
});
