/**
 * The result of a task that expired into the spec's expiry state: a declared error, never the server's own
 * -32603. The spec is mcp-2025-11-25 (results block until the task is terminal and are replayed) with an
 * `expired` state that `behaviour.events.expiry` names, its task request carried in `params.job`.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml, stringify as toYaml } from "yaml";
import { specModel } from "../generator/conform/model.js";
import { Session } from "../generator/conform/session.js";
import { analyze } from "../generator/pipeline.js";
import { eventually, httpChild, root } from "./seed-harness.js";

let dir: string;
let file: string;
beforeAll(() => {
  mkdirSync(join(root, ".tmp"), { recursive: true });
  dir = mkdtempSync(join(root, ".tmp", "expiry-result-"));
  const d = parseYaml(readFileSync(join(root, "spec", "mcp-2025-11-25.yaml"), "utf8"));
  d.spec = "expiring";
  d.behaviour.creation.param = "job";
  d.states.expired = { role: "failed", terminal: true };
  d.transitions.push({ from: ["working", "input_required"], to: "expired" });
  d.behaviour.events = { ...(d.behaviour.events ?? {}), expiry: "expired" };
  file = join(dir, "expiring.yaml");
  writeFileSync(file, toYaml(d, { lineWidth: 0 }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the result of a task in the spec's expiry state", () => {
  it("is the declared expired error, not -32603", async () => {
    const { ir } = analyze({ file, text: readFileSync(file, "utf8") });
    expect(ir).toBeDefined();
    const server = httpChild(spawn(join(root, "node_modules/.bin/tsx"), [join(root, "scripts/demo-server.ts"), file, "--http", "0"], { cwd: root, stdio: ["ignore", "ignore", "pipe"] }), "demo expiring");
    const session = new Session(specModel(ir!), { url: await server.url });
    try {
      expect((await session.open())?.result).toBeDefined();
      const ack = await session.request("tools/call", { name: "slow_compute", arguments: { seconds: 30 }, job: { ttl: 300 } });
      const taskId = (ack.result?.task as { taskId: string }).taskId;
      await eventually(async () => {
        const got = await session.request("tasks/get", { taskId });
        return got.result?.status === "expired" ? true : undefined;
      }, "the task to expire");
      const result = await session.request("tasks/result", { taskId });
      expect(result.error).toEqual({ code: -32602, message: "Failed to retrieve task: Task has expired" });
    } finally {
      await session.close();
      await server.stop();
    }
  }, 60_000);
});
