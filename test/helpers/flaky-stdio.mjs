// A stdio server that misbehaves in one way around a real one, for conform's "could not test" verdicts:
//   node flaky-stdio.mjs <mode> <n> -- <command...>
// mode crash: passes messages both ways, and exits (code 1) once the client has sent n requests;
// mode stall: passes messages both ways, and from the client's n-th request on answers nothing more;
// mode count: passes everything, and appends a line to the file <n> as it starts (to count starts);
// mode never-ends: a server whose work never ends unless cancelled (n unused): every task it shows is still working
//   (a status notification of an end is dropped) and tasks/result of such a task is never answered, while everything
//   else is answered: an unknown id's error, a cancel and what follows it (the cancelled task, its result).
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";

const [mode, n, sep, ...command] = process.argv.slice(2);
if (sep !== "--" || command.length === 0) {
  process.stderr.write("usage: flaky-stdio.mjs crash|stall|count|never-ends <n|file> -- <command...>\n");
  process.exit(2);
}
if (mode === "count") appendFileSync(n, "start\n");
const child = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
child.on("exit", (code) => process.exit(code ?? 1));
process.on("SIGTERM", () => {
  child.kill("SIGTERM");
  process.exit(0);
});
let requests = 0;

/** Calls `onLine` with each complete line of a stream's text, as its chunks come. */
function lines(stream, onLine) {
  let pending = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk) => {
    pending += chunk;
    for (let nl = pending.indexOf("\n"); nl !== -1; nl = pending.indexOf("\n")) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      onLine(line);
    }
  });
}
// never-ends: the requests in flight by id, the tasks the server made, those it cancelled, and the answers to
// tasks/result held back (by task) until the task is cancelled.
const asked = new Map();
const known = new Set();
const cancelled = new Set();
const held = new Map();
lines(process.stdin, (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    message = undefined;
  }
  if (message && typeof message.method === "string" && message.id !== undefined) requests++;
  if (mode === "crash" && requests >= Number(n)) {
    child.kill("SIGKILL");
    process.exit(1);
  }
  if (mode === "never-ends" && message?.id !== undefined && typeof message.method === "string") asked.set(message.id, message);
  child.stdin.write(`${line}\n`);
});
process.stdin.on("end", () => child.stdin.end());
const ENDED = new Set(["completed", "failed", "cancelled"]);
if (mode === "never-ends") lines(child.stdout, neverEnds);
else {
  child.stdout.on("data", (chunk) => {
    if (mode === "stall" && requests >= Number(n)) return;
    process.stdout.write(chunk);
  });
}
function neverEnds(line) {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    process.stdout.write(`${line}\n`);
    return;
  }
  const request = message.id !== undefined ? asked.get(message.id) : undefined;
  if (request) asked.delete(message.id);
  const r = message.result;
  const tasks = r ? [r, r.task, ...(Array.isArray(r.tasks) ? r.tasks : [])].filter((t) => t && typeof t === "object" && typeof t.taskId === "string") : [];
  for (const t of tasks) known.add(t.taskId);
  if (request?.method === "tasks/cancel" && tasks.some((t) => t.status === "cancelled")) release(request.params?.taskId);
  if (message.method === "notifications/tasks/status") {
    if (message.params?.status === "cancelled") release(message.params.taskId);
    else if (ENDED.has(message.params?.status)) return;
  }
  if (request?.method === "tasks/result") {
    const id = request.params?.taskId;
    if (known.has(id) && !cancelled.has(id)) {
      held.set(id, [...(held.get(id) ?? []), message]);
      return;
    }
  }
  for (const t of tasks) if (ENDED.has(t.status) && !cancelled.has(t.taskId)) t.status = "working";
  process.stdout.write(`${JSON.stringify(message)}\n`);
}
function release(id) {
  if (typeof id !== "string" || cancelled.has(id)) return;
  cancelled.add(id);
  for (const m of held.get(id) ?? []) process.stdout.write(`${JSON.stringify(m)}\n`);
  held.delete(id);
}
