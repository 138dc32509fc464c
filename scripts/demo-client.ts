/**
 * The demo client: walks the whole task flow against the demo server with the
 * generated client stubs (output-samples/<spec>/client.ts).
 *
 *   npm run --silent demo:client -- [<spec-name>] [--http <url>]
 *
 * Without --http it starts the demo server itself on stdio (its stderr, the
 * audit log, is shown dimmed when DEMO_SERVER_LOG=1).
 */
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

type ClientModule = typeof import("../output-samples/sep-1686-draft/client.js");
type AtOnceClientModule = typeof import("../output-samples/mcp-2025-11-25/client.js");

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
let spec = "sep-1686-draft";
let url: string | undefined;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--http") url = args[++i];
  else spec = args[i]!;
}

const say = (s: string) => process.stdout.write(s + "\n");
const textOf = (r: { content?: unknown }) =>
  ((r.content as { type: string; text?: string }[] | undefined) ?? []).map((c) => c.text ?? `[${c.type}]`).join(" ");

async function main() {
  const mod = await import(pathToFileURL(join(root, "output-samples", spec, "client.ts")).href);
  // A revision whose requests are answered with the task at once ({ task }: mcp-2025-11-25) has its own walk.
  if ((mod as { CLIENT_BEHAVIOUR: { creation: { ack: { mode: string } } } }).CLIENT_BEHAVIOUR.creation.ack.mode === "result") {
    return mainAtOnce(mod as AtOnceClientModule);
  }
  const gen = mod as ClientModule;
  const client = new Client({ name: "mcp-task-gen-demo-client", version: "0.1.0" }, { capabilities: { elicitation: {} } });
  // The server asks for confirmation (confirm_delete): we answer yes, and show the related task.
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    say(`  ← elicitation "${req.params.message}" for task ${gen.relatedTaskId(req) ?? "(none)"}: answering yes`);
    return { action: "accept", content: { confirm: true } };
  });
  const tasks = new gen.TaskClient(client);
  await client.connect(demoTransport(url, spec));
  say(`connected to ${url ?? "the demo server on stdio"} (${spec})`);
  const onTaskStatus = (t: { taskId: string; status: string }): void => {
    say(`  · task ${t.taskId.slice(0, 8)}… is ${t.status}`);
  };

  say("\n1. greet as a task: the server acknowledges with notifications/tasks/created, the answer races polling");
  const greet = tasks.beginCallTool({ name: "greet", arguments: { name: "Ada" } }, { keepAlive: 60_000 });
  say(`  → ${textOf(await greet.result({ onTaskStatus }))}`);
  say(`  tasks/get: ${JSON.stringify(await tasks.getTask(greet.taskId!))}`);
  say(`  tasks/result: ${textOf(await tasks.getTaskResult(greet.taskId!))}`);

  say("\n2. slow_compute for 30 s, cancelled after the first poll (notifications/cancelled, confirmed by polling)");
  const ac = new AbortController();
  const slow = tasks.beginCallTool({ name: "slow_compute", arguments: { seconds: 30 } }, { signal: ac.signal });
  try {
    await slow.result({
      onTaskStatus: (t) => {
        onTaskStatus(t);
        if (t.status === "working") ac.abort();
      },
    });
  } catch (e) {
    say(`  → ${e instanceof Error ? e.message : String(e)}`);
  }

  say("\n3. failing_job: a tool error (isError) — the task still completes (section 7.2)");
  const failing = tasks.beginCallTool({ name: "failing_job", arguments: {} });
  const r = await failing.result({ onTaskStatus });
  say(`  → isError=${String(r.isError)} "${textOf(r)}"; status ${(await tasks.getTask(failing.taskId!)).status}`);

  say("\n4. protocol_error_job: a JSON-RPC error — the task fails with an error message");
  const broken = tasks.beginCallTool({ name: "protocol_error_job", arguments: {} });
  try {
    await broken.result({ onTaskStatus });
  } catch (e) {
    say(`  → error ${(e as { code?: number }).code}: ${(e as Error).message}`);
  }
  say(`  tasks/get: ${JSON.stringify(await tasks.getTask(broken.taskId!))}`);

  say("\n5. confirm_delete: the task waits in input_required until the elicitation is answered");
  const confirm = tasks.beginCallTool({ name: "confirm_delete", arguments: { filename: "old.log" } });
  say(`  → ${textOf(await confirm.result({ onTaskStatus }))}`);

  say("\n6. tasks/list, page by page");
  for await (const page of tasks.listTasks()) {
    for (const t of page.tasks) say(`  · ${t.taskId} ${t.status}`);
  }

  say("\n7. tasks/delete of the finished greet task, then tasks/get");
  await tasks.deleteTask(greet.taskId!);
  try {
    await tasks.getTask(greet.taskId!);
  } catch (e) {
    say(`  → ${(e as Error).message}`);
  }
  await client.close();
}

/**
 * The walk for a revision that answers a task-augmented request with { task } at once
 * (mcp-2025-11-25): tasks/get polling, the blocking tasks/result (which also carries the
 * task's elicitation), tasks/cancel, tasks/list, execution.taskSupport from tools/list.
 */
async function mainAtOnce(gen: AtOnceClientModule) {
  const client = new Client({ name: "mcp-task-gen-demo-client", version: "0.1.0" }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    say(`  ← elicitation "${req.params.message}" for task ${gen.relatedTaskId(req) ?? "(none)"} (on tasks/result): answering yes`);
    return { action: "accept", content: { confirm: true } };
  });
  const tasks = new gen.TaskClient(client, {
    onStatusNotification: (t) => {
      say(`  ⇠ notifications/tasks/status: ${t.taskId.slice(0, 8)}… ${t.status}`);
    },
  });
  await client.connect(demoTransport(url, spec));
  say(`connected to ${url ?? "the demo server on stdio"} (${spec}); capabilities.tasks = ${JSON.stringify(client.getServerCapabilities()?.tasks)}`);
  const onTaskStatus = (t: { taskId: string; status: string }): void => {
    say(`  · task ${t.taskId.slice(0, 8)}… is ${t.status}`);
  };

  say("\n1. tools/list: execution.taskSupport per tool");
  for (const t of await tasks.listTools()) say(`  · ${String(t.name)}: ${JSON.stringify(t.execution)}`);

  say("\n2. greet is task-forbidden: called plainly");
  say(`  → ${textOf(await tasks.callTool({ name: "greet", arguments: { name: "Ada" } }))}`);

  say("\n3. slow_compute as a task: { task } at once, tasks/get polling, tasks/result");
  const started = await tasks.start({ method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 1 } } }, CallToolResultSchema, { keepAlive: 60_000 });
  if ("task" in started) {
    say(`  CreateTaskResult: ${JSON.stringify(started.task)}`);
    say(`  → ${textOf(await tasks.waitForTask(started.task.taskId, CallToolResultSchema, { onTaskStatus }))}`);
  }

  say("\n4. confirm_delete (task required): input_required, the elicitation arrives through tasks/result");
  say(`  → ${textOf(await tasks.callTool({ name: "confirm_delete", arguments: { filename: "old.log" } }, { onTaskStatus }))}`);

  say("\n5. failing_job: isError makes the task failed; tasks/result still returns the tool's result");
  const failed = await tasks.callTool({ name: "failing_job", arguments: { seconds: 0.2 } }, { onTaskStatus });
  say(`  → isError=${String(failed.isError)} "${textOf(failed)}"`);

  say("\n6. protocol_error_job: tasks/result replays the request's JSON-RPC error");
  try {
    await tasks.callTool({ name: "protocol_error_job", arguments: {} }, { onTaskStatus });
  } catch (e) {
    say(`  → error ${(e as { code?: number }).code}: ${(e as Error).message}`);
  }

  say("\n7. slow_compute for 30 s, cancelled with tasks/cancel (the reply is the cancelled task)");
  const ac = new AbortController();
  try {
    await tasks.callTool({ name: "slow_compute", arguments: { seconds: 30 } }, {
        signal: ac.signal,
        onTaskStatus: (t) => {
          onTaskStatus(t);
          ac.abort();
        },
      });
  } catch (e) {
    say(`  → ${e instanceof Error ? e.message : String(e)}`);
  }

  say("\n8. tasks/list, page by page");
  for await (const page of tasks.listTasks()) for (const t of page.tasks) say(`  · ${t.taskId} ${t.status}${t.statusMessage ? ` (${t.statusMessage})` : ""}`);
  await client.close();
}

main().catch((e: unknown) => {
  process.stderr.write(`demo-client: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});

/** The demo server at `url`, or a demo server of `spec` started as a stdio child. */
function demoTransport(url: string | undefined, spec: string): StreamableHTTPClientTransport | StdioClientTransport {
  return url
    ? new StreamableHTTPClientTransport(new URL(url))
    : new StdioClientTransport({
        command: process.execPath,
        args: ["--import", "tsx", join(root, "scripts", "demo-server.ts"), spec],
        env: { ...getDefaultEnvironment(), MCP_TASK_GEN_DEMO_OPTIONS: JSON.stringify({ pollFrequency: 200 }) },
        stderr: process.env.DEMO_SERVER_LOG ? "inherit" : "ignore",
      });
}
