/**
 * The demo's tools: greet, slow_compute, failing_job, protocol_error_job, confirm_delete (the acceptance
 * contract), plus multi_input (two elicitations at once), test_tool_with_task (input on the request before
 * a task is made), get_weather (the seed's example result) and crash_job (an unexpected throw). Whether
 * each may, must or must not run as a task follows what the spec's revision puts on the wire.
 */
import { z } from "zod";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { type DemoRuntime, log, type ServerModule } from "./common.js";

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason ?? new Error("aborted"));
    const t = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason ?? new Error("aborted"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });

/** A log message to the requestor (notifications/message); a connection that takes none (no logging capability) is not told. */
async function tell(ctx: { notify(n: { method: string; params?: Record<string, unknown> }): Promise<void> }, level: "info" | "debug", data: string): Promise<void> {
  await ctx.notify({ method: "notifications/message", params: { level, logger: "slow_compute", data } }).catch(() => undefined);
}

/** The tools, defined on the generated server of `gen`; `retryTools` names those whose work runs again when its worker is lost. */
export function demoTools(gen: ServerModule, runtime: DemoRuntime, retryTools: Record<string, number> | undefined) {
  // The task's own numeric fields (e.g. progress), which slow_compute sets as it goes.
  const numericFields = Object.entries(runtime.descriptor.taskExtras)
    .filter(([, v]) => typeof v === "number")
    .map(([k]) => k);

  // Where the revision declares a per-tool switch (execution.taskSupport: mcp-2025-11-25), greet keeps
  // its default (forbidden), the others may run as tasks and confirm_delete must; elsewhere the switch
  // is not on the wire and every tool may run as a task.
  const toolSwitch = (runtime.behaviour.creation as { toolSwitch: unknown }).toolSwitch !== false;
  const asTask = { taskSupport: "optional" as const };
  // Where the receiver alone decides (creation.decidedBy receiver: ext-tasks-2026-07-28), the demo
  // decides per tool: greet answers at once, slow_compute and protocol_error_job run as a task when the
  // requestor allows one (answered at once otherwise: the same result, or the same JSON-RPC error, a task ends
  // with), and the jobs that need a task (input, long work) refuse a requestor that does not allow one.
  const serverDecides = (runtime.behaviour.creation as { decidedBy: string }).decidedBy === "receiver";
  const mustTask = serverDecides ? { taskSupport: "required" as const } : asTask;
  const tools = [
    gen.defineTool({
      name: "greet",
      description: "Greets someone at once.",
      ...(serverDecides ? { taskSupport: "forbidden" as const } : {}),
      inputSchema: z.object({ name: z.string() }),
      handler: async ({ name }) => text(`Hello, ${name}!`),
    }),
    gen.defineTool({
      name: "slow_compute",
      description: "Sleeps for the given seconds, then answers; cancellable; reports progress where asked and logs its work.",
      ...asTask,
      // label: a free-form tag the conformance suite sends along.
      inputSchema: z.object({ seconds: z.number().min(0).max(3600), label: z.string().optional() }),
      handler: async ({ seconds }, ctx) => {
        // One line per run: a task's runs can be counted across processes.
        log("slow_compute started", { taskId: ctx.taskId ?? null });
        // It logs its work to the requestor too (a task's log names the task), where the connection takes logs.
        await tell(ctx, "info", `computing for ${seconds} s`);
        try {
          // In steps: between them the task honours a transition that holds it (e.g. a pause), and
          // reports its progress in the task's own numeric fields where the spec declares some.
          const steps = Math.max(1, Math.min(100, Math.ceil(seconds * 10)));
          for (let i = 1; i <= steps; i++) {
            await ctx.whenRunning();
            await sleep((seconds * 1000) / steps, ctx.signal);
            if (numericFields.length > 0) await ctx.setFields(Object.fromEntries(numericFields.map((f) => [f, Math.round((100 * i) / steps)])));
            // Progress only where the requestor asked for it (a token that is still valid).
            if (ctx.progressToken !== undefined) await ctx.notify({ method: "notifications/progress", params: { progressToken: ctx.progressToken, progress: i, total: steps } });
          }
        } catch (e) {
          log("slow_compute aborted", { taskId: ctx.taskId ?? null });
          throw e;
        }
        await tell(ctx, "info", `computed for ${seconds} s`);
        return text(`Computed for ${seconds} s`);
      },
    }),
    gen.defineTool({
      name: "failing_job",
      description: "Returns a tool error (isError) after about a second.",
      ...mustTask,
      inputSchema: z.object({ seconds: z.number().min(0).max(60).optional() }),
      handler: async ({ seconds }, ctx) => {
        await sleep((seconds ?? 1) * 1000, ctx.signal);
        return { ...text("The job failed: the input data set is empty"), isError: true };
      },
    }),
    gen.defineTool({
      name: "protocol_error_job",
      description: "Fails with a JSON-RPC error.",
      ...asTask,
      inputSchema: z.object({}),
      handler: async () => {
        throw new McpError(ErrorCode.InternalError, "Tool execution failed: API rate limit exceeded");
      },
    }),
    gen.defineTool({
      name: "confirm_delete",
      description: "Asks the requestor to confirm (one elicitation), then answers.",
      taskSupport: toolSwitch || serverDecides ? ("required" as const) : ("optional" as const),
      inputSchema: z.object({ filename: z.string().optional() }),
      handler: async ({ filename }, ctx) => {
        const file = filename ?? "report.txt";
        const answer = await ctx.elicit({
          mode: "form",
          message: `Delete ${file}?`,
          requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] },
        });
        const yes = answer.action === "accept" && answer.content?.confirm === true;
        return text(yes ? `Deleted ${file}` : `Kept ${file}`);
      },
    }),
    gen.defineTool({
      name: "get_weather",
      description: "The weather report of the seed's example (section 3.3).",
      ...asTask,
      inputSchema: z.object({ location: z.string().optional() }),
      handler: async () => ({
        ...text("Current weather in New York:\nTemperature: 72°F\nConditions: Partly cloudy"),
        isError: false,
      }),
    }),
    gen.defineTool({
      name: "crash_job",
      ...asTask,
      description: "Fails unexpectedly (a plain exception, not a JSON-RPC error): the task ends in the unexpected-failure status.",
      inputSchema: z.object({}),
      handler: async () => {
        throw new TypeError("simulated bug: cannot read properties of undefined");
      },
    }),
    gen.defineTool({
      name: "multi_input",
      description: "Asks two elicitations at once, then answers with both.",
      ...mustTask,
      inputSchema: z.object({}),
      handler: async (_args, ctx) => {
        const ask = (what: string) =>
          ctx.elicit({
            mode: "form",
            message: `Your ${what}?`,
            requestedSchema: { type: "object", properties: { value: { type: "string" } }, required: ["value"] },
          });
        const [a, b] = await Promise.all([ask("name"), ask("colour")]);
        return text(`name=${String(a.content?.value ?? a.content?.name)} colour=${String(b.content?.value ?? b.content?.name)}`);
      },
    }),
    gen.defineTool({
      name: "test_tool_with_task",
      description: "Asks for a name on the request itself (before any task), then greets it as a task.",
      ...mustTask,
      inputSchema: z.object({ name: z.string().optional() }),
      prepare: async (args, ctx) => {
        const answer = await ctx.elicit({
          mode: "form",
          message: "What is your name?",
          requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        });
        const name = answer.action === "accept" ? answer.content?.name : undefined;
        return { ...args, name: typeof name === "string" ? name : "stranger" };
      },
      handler: async ({ name }) => text(`Hello, ${name ?? "stranger"}!`),
    }),
  ];

  // Tools declared safe to run again on another worker when theirs is lost.
  for (const t of tools) {
    const attempts = retryTools?.[t.name];
    if (typeof attempts === "number") (t as { retry?: unknown }).retry = { attempts };
  }
  return tools;
}
