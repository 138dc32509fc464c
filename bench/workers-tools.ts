/**
 * The tools of the worker-pool benchmark: `io` sleeps (an I/O-bound job), `cpu` spins (a CPU-bound one).
 * Each answers with the time its work started (epoch ms), so that enqueue-to-start latency can be read
 * from the stored result against the task's creation time.
 */
import { z } from "zod";

type Gen = typeof import("../output-samples/mcp-2025-11-25/server.js");

export function benchTools(gen: Gen) {
  const started = (t: number) => ({ content: [{ type: "text" as const, text: String(t) }] });
  return [
    gen.defineTool({
      name: "io",
      taskSupport: "optional",
      inputSchema: z.object({ ms: z.number() }),
      handler: async ({ ms }) => {
        const t = Date.now();
        await new Promise((r) => setTimeout(r, ms));
        return started(t);
      },
    }),
    gen.defineTool({
      name: "cpu",
      taskSupport: "optional",
      inputSchema: z.object({ ms: z.number() }),
      handler: async ({ ms }) => {
        const t = Date.now();
        let x = 0;
        while (Date.now() - t < ms) x = (x + Math.sqrt(x + 1)) % 1e9;
        return { ...started(t), _meta: { x } };
      },
    }),
  ];
}
