/**
 * The format worker (see formatter.ts): loads prettier and warms it up on
 * code shaped like the generated files while the main thread is still busy,
 * then formats the files it is sent, with the very same function as the
 * main thread (formatInProcess).
 */
import { parentPort } from "node:worker_threads";
import { formatInProcess } from "./formatter.js";

interface Request {
  id: number;
  path: string;
  contents: string;
}

const port = parentPort;
if (!port) throw new Error("format-worker.js runs as a worker thread");

let pending = 0;

port.on("message", (m: Request) => {
  pending++;
  formatInProcess({ path: m.path, contents: m.contents }).then(
    (f) => {
      pending--;
      port.postMessage({ id: m.id, contents: f.contents });
    },
    () => {
      pending--;
      // The main thread formats it again and reports the error itself.
      port.postMessage({ id: m.id, failed: true });
    },
  );
});

// Warm-up: compile prettier's parser and printers for the shapes of the generated code, until real work arrives
// (TypeScript only: the generated Markdown is printed by the main thread, see tidyMarkdown). One round: warming
// up over and over until the files come was measured slower, as it competes with the main thread's own
// background work (GC, JIT) on 2 cores.
const WARM_UP = `// header\nimport { z } from "zod";\nimport type * as T from "./types.js";\n\n/** A doc comment. */\nexport interface Task { taskId: string; status: "working" | "completed"; ttl?: number | null; meta?: Record<string, unknown> }\nexport type Status = Task["status"];\nexport const TaskSchema = z.object({ taskId: z.string(), status: z.enum(["working", "completed"]), ttl: z.number().int().nullable().optional() }).strict();\nexport function isTask(v: unknown): v is T.Task {\n  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;\n  const o = v as Record<string, unknown>;\n  return typeof o.taskId === "string" && (o.ttl === undefined || o.ttl === null || (typeof o.ttl === "number" && Number.isInteger(o.ttl)));\n}\nexport const TRANSITIONS = { working: ["completed"], completed: [] } as const satisfies Record<string, readonly string[]>;\nexport class TaskServer<S extends object = {}> {\n  private readonly tasks = new Map<string, T.Task>();\n  constructor(private readonly store: S, opts: { now?: () => number } = {}) {}\n  async handle(method: string, params: unknown): Promise<unknown> {\n    switch (method) {\n      case "tasks/get": {\n        const t = this.tasks.get(String((params as { taskId?: string }).taskId));\n        if (!t) throw new Error(\`no task \${method}\`);\n        return { ...t, _meta: { "io.modelcontextprotocol/related-task": { taskId: t.taskId } } };\n      }\n      default:\n        return undefined;\n    }\n  }\n}\n`;

if (pending === 0) {
  try {
    await formatInProcess({ path: "warm-up.ts", contents: WARM_UP });
  } catch {
    // Only a warm-up.
  }
}
