/**
 * Status notifications pushed on the session (the initialize lifecycle) carry the payload the spec declares:
 * mcp-2025-11-25 with `statusNotifications.payload: detailed-task` pushes the task with what its status carries,
 * its result once completed; with `task`, the task alone.
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { generateSpec, serveSpec, type Served } from "./helpers/serve-spec.js";

let open: Served | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

async function pushedEnd(payload: "task" | "detailed-task"): Promise<Record<string, unknown>> {
  const out = await generateSpec("spec-push-detailed", payload, "spec/mcp-2025-11-25.yaml", (text) => {
    const changed = text.replace("    delivery: push\n    payload: task\n", `    delivery: push\n    payload: ${payload}\n`);
    expect(changed).toContain(`payload: ${payload}`);
    return changed;
  });
  const s = (open = await serveSpec(out));
  const ended = new Promise<Record<string, unknown>>((resolve) => {
    s.client.setNotificationHandler(z.object({ method: z.literal("notifications/tasks/status"), params: z.record(z.string(), z.unknown()) }).passthrough() as never, (n: { params: Record<string, unknown> }) => {
      if (n.params.status === "completed") resolve(n.params);
    });
  });
  await s.request("tools/call", { name: "slow", arguments: { ms: 30 }, task: { ttl: 60_000 } });
  return ended;
}

describe("pushed status notifications", () => {
  it("with payload detailed-task, the completed task carries its result", async () => {
    const params = await pushedEnd("detailed-task");
    expect(params).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "done" }] } });
  });

  it("with payload task, the task alone", async () => {
    const params = await pushedEnd("task");
    expect(params.status).toBe("completed");
    expect(params).not.toHaveProperty("result");
  });
});
