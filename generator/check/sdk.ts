/** What the SDKs underneath the runtime accept: the task shape they check and the capabilities they keep. */
import type { Ctx } from "./context.js";
import type { TaskInfo } from "./task.js";

/** The task fields the task-augmented tools/call answer of the SDK 1.32 `Server` must carry (its CreateTaskResultSchema). */
const SDK_TASK_FIELDS = ["taskId", "status", "ttl", "createdAt", "lastUpdatedAt"];
const SDK_TASK_STATUSES = new Set(["working", "input_required", "completed", "failed", "cancelled"]);

/**
 * Under the initialize lifecycle the runtime sits on the SDK 1.32 `Server`, whose own tools/call
 * wrapper (used by `McpServer.registerTool`) checks any answer to a request carrying `params.task`
 * against its task shape, and whose client reads every task status against the same five. A spec that
 * carries its task request there must give tasks that shape.
 */
export function checkSdkTaskShape(ctx: Ctx, task: TaskInfo): void {
  const { spec, report } = ctx;
  const { taskFields, taskType } = task;
  const b = spec.behaviour;
  const cr = b.creation;
  if ((spec.protocol.lifecycle ?? "initialize") !== "initialize" || cr.via !== "param" || cr.param !== "task") return;
  if (!cr.requests.server.includes("tools/call") && !cr.requests.server.includes("*")) return;
  const problems: string[] = [];
  if (cr.ack.mode !== "result") problems.push("the answer must be `{ task }` (creation.ack.mode result)");
  if ((b.taskIdField ?? "taskId") !== "taskId") problems.push("the id must be in `taskId`");
  if ((b.statusField ?? "status") !== "status") problems.push("the status must be in `status`");
  if (!b.retention || b.retention.field !== "ttl") problems.push("the retention must be in `ttl` (behaviour.retention.field)");
  const missing = taskFields === undefined ? [] : SDK_TASK_FIELDS.filter((f) => !(f in taskFields));
  if (missing.length > 0) problems.push(`the task type '${taskType}' lacks ${missing.join(", ")}`);
  // The Server checks a new task's status; the SDK's client (callToolStream, getTask, listTasks) every status it reads.
  const odd = Object.keys(spec.states).filter((n) => !SDK_TASK_STATUSES.has(n));
  if (odd.length > 0) problems.push(`every status (here ${odd.join(", ")}) must be one of ${[...SDK_TASK_STATUSES].join(", ")}, which the SDK's client reads a task's status against`);
  if (problems.length === 0) return;
  report(
    "MTG069",
    "error",
    `a task request carried in \`params.task\` of tools/call is checked by the SDK 1.32 Server underneath against its own task shape, and this spec's would fail it: ${problems.join("; ")}. Give tasks that shape, or carry the task request in another field (creation.param)`,
    ["behaviour", "creation", "param"],
  );
}

/** The capability keys the SDK 1.32 keeps when it reads the other side's capabilities (it drops any other). */
const SDK_CAPABILITY_KEYS = {
  server: ["experimental", "logging", "completions", "prompts", "resources", "tools", "tasks", "extensions"],
  client: ["experimental", "sampling", "elicitation", "roots", "tasks", "extensions"],
} as const;

/** The requests the per-request binding can serve as tasks. */
const PER_REQUEST_TASK_METHODS: readonly string[] = ["tools/call", "resources/read", "prompts/get"];

/** Under the initialize lifecycle a capability must live under a key the SDK 1.32 keeps, or the peer never sees it. */
export function checkSdkCapabilityKeys(ctx: Ctx): void {
  const { spec, report } = ctx;
  if (spec.protocol.lifecycle === "per-request") {
    // The per-request binding (on @modelcontextprotocol/server 2.x) runs as tasks the requests whose results that SDK
    // lets carry one; other requests it answers plainly.
    spec.behaviour.creation.requests.server.forEach((m, i) => {
      if (PER_REQUEST_TASK_METHODS.includes(m)) return;
      report(
        "MTG069",
        "error",
        `the per-request binding underneath serves only ${PER_REQUEST_TASK_METHODS.join(", ")} as tasks (the requests whose results @modelcontextprotocol/server 2.x lets carry one), so '${m}' would be advertised and never served as one; remove it, or use lifecycle initialize`,
        ["behaviour", "creation", "requests", "server", i],
      );
    });
    return;
  }
  for (const side of ["server", "client"] as const) {
    const cap = spec.behaviour.capabilities[side];
    if (!cap || cap.path.length === 0) continue;
    const keys: readonly string[] = SDK_CAPABILITY_KEYS[side];
    if (keys.includes(cap.path[0]!)) continue;
    report(
      "MTG069",
      "error",
      `the SDK 1.32 underneath drops ${side} capability keys it does not know, so '${cap.path[0]}' would never reach the peer; put the capability under one it keeps (${keys.join(", ")}), e.g. path: [experimental, ${cap.path[0]}]`,
      ["behaviour", "capabilities", side, "path", 0],
    );
  }
}
