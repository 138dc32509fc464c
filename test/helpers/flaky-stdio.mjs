// A stdio server that misbehaves in one way around a real one, for conform's "could not test" verdicts:
//   node flaky-stdio.mjs <mode> <n> -- <command...>
// mode crash: passes messages both ways, and exits (code 1) once the client has sent n requests;
// mode stall: passes messages both ways, and from the client's n-th request on answers nothing more;
// mode count: passes everything, and appends a line to the file <n> as it starts (to count starts);
// mode never-ends: a server whose work never ends (n unused): tasks/result is never answered, and every task it
//   shows is still working (a status notification of an end is dropped), while everything else is answered.
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
let buffer = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
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
    // Never answered: the client's request is not passed on.
    if (mode === "never-ends" && message?.method === "tasks/result") continue;
    child.stdin.write(`${line}\n`);
  }
});
process.stdin.on("end", () => child.stdin.end());
child.stdout.setEncoding("utf8");
const ENDED = new Set(["completed", "failed", "cancelled"]);
let out = "";
child.stdout.on("data", (chunk) => {
  if (mode === "stall" && requests >= Number(n)) return;
  if (mode !== "never-ends") return void process.stdout.write(chunk);
  out += chunk;
  for (let nl = out.indexOf("\n"); nl !== -1; nl = out.indexOf("\n")) {
    const line = out.slice(0, nl);
    out = out.slice(nl + 1);
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      process.stdout.write(`${line}\n`);
      continue;
    }
    if (message.method === "notifications/tasks/status" && ENDED.has(message.params?.status)) continue;
    const r = message.result;
    const tasks = r ? [r, r.task, ...(Array.isArray(r.tasks) ? r.tasks : [])] : [];
    for (const t of tasks) if (t && typeof t === "object" && ENDED.has(t.status)) t.status = "working";
    process.stdout.write(`${JSON.stringify(message)}\n`);
  }
});
