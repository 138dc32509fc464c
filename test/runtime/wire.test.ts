import { describe, expect, it } from "vitest";
import { signCursor, verifyCursor } from "../../runtime/cursor.js";
import { makePlan } from "../../runtime/plan.js";
import type { TaskRecord } from "../../runtime/store.js";
import {
  checkTaskIdHeader,
  declaresClientCapability,
  decodeHeaderValue,
  isoTime,
  toDetailedTask,
  toWireTask,
  withRelated,
  withResultType,
} from "../../runtime/wire.js";
import { capabilityMeta } from "./harness.js";
import { descriptorOf } from "./descriptors.js";

const base: TaskRecord = {
  taskId: "t1",
  owner: "o",
  status: "working",
  method: "tools/call",
  requestId: 1,
  createdAt: 0,
  updatedAt: 1000,
  terminalAt: null,
  keepAlive: 5000,
  pollFrequency: 250,
  expiresAt: null,
  pendingInputs: 0,
  seq: 1,
};
const failed: TaskRecord = { ...base, status: "failed", terminalAt: 1000, statusMessage: "bad", error: { code: -32000, message: "boom" } };
const completed: TaskRecord = { ...base, status: "completed", terminalAt: 1000, result: { content: [] } };

describe("the task on the wire", () => {
  it("sep-1686-draft: keepAlive, pollFrequency, and the failure as a message under error", async () => {
    const plan = makePlan(await descriptorOf("sep-1686-draft"));
    expect(toWireTask(plan, { ...base, status: "submitted" })).toEqual({ taskId: "t1", status: "submitted", keepAlive: 5000, pollFrequency: 250 });
    expect(toWireTask(plan, failed)).toEqual({ taskId: "t1", status: "failed", keepAlive: 5000, pollFrequency: 250, error: "boom" });
    expect(toWireTask(plan, { ...base, keepAlive: null })).toMatchObject({ keepAlive: null });
  });

  it("mcp-2025-11-25: ttl, pollInterval, times, and the failure as the statusMessage", async () => {
    const plan = makePlan(await descriptorOf("mcp-2025-11-25"));
    expect(toWireTask(plan, { ...base, statusMessage: "hi" })).toEqual({
      taskId: "t1",
      status: "working",
      statusMessage: "hi",
      createdAt: "1970-01-01T00:00:00.000Z",
      lastUpdatedAt: "1970-01-01T00:00:01.000Z",
      ttl: 5000,
      pollInterval: 250,
    });
    expect(toWireTask(plan, failed)).toMatchObject({ status: "failed", statusMessage: "boom" });
    expect(plan.descriptor.validateTask(toWireTask(plan, failed)).success).toBe(true);
  });

  it("ext-tasks-2026-07-28: ttlMs, pollIntervalMs; the detailed task inlines result, error and input requests", async () => {
    const plan = makePlan(await descriptorOf("ext-tasks-2026-07-28"));
    const wire = toWireTask<Record<string, unknown>>(plan, failed);
    expect(wire).toEqual({
      taskId: "t1",
      status: "failed",
      statusMessage: "bad",
      createdAt: "1970-01-01T00:00:00.000Z",
      lastUpdatedAt: "1970-01-01T00:00:01.000Z",
      ttlMs: 5000,
      pollIntervalMs: 250,
    });
    expect(toDetailedTask(plan, failed)).toEqual({ ...wire, error: { code: -32000, message: "boom" } });
    expect(toDetailedTask(plan, completed)).toMatchObject({ status: "completed", result: { content: [] } });
    const asking: TaskRecord = { ...base, status: "input_required", inputRequests: { "input-1": { method: "elicitation/create", params: {} } } };
    expect(toDetailedTask(plan, asking)).toMatchObject({ inputRequests: { "input-1": { method: "elicitation/create" } } });
    expect(toDetailedTask(plan, { ...base, status: "input_required" })).toMatchObject({ inputRequests: {} });
    for (const rec of [failed, completed, asking]) expect(plan.descriptor.validateTask(toDetailedTask(plan, rec)).success).toBe(true);
  });

  it("withResultType marks a result complete only where the spec has a result type, and keeps a marker already there", async () => {
    const ext = makePlan(await descriptorOf("ext-tasks-2026-07-28"));
    const sep = makePlan(await descriptorOf("sep-1686-draft"));
    expect(withResultType(ext, { content: [] })).toEqual({ content: [], resultType: "complete" });
    expect(withResultType(ext, { resultType: "task" })).toEqual({ resultType: "task" });
    const r = { content: [] };
    expect(withResultType(sep, r)).toBe(r);
  });

  it("withRelated adds the declared related-task meta, keeping other meta; nothing where none is declared", async () => {
    const sep = makePlan(await descriptorOf("sep-1686-draft"));
    const ext = makePlan(await descriptorOf("ext-tasks-2026-07-28"));
    expect(withRelated(sep, { _meta: { a: 1 } }, "t1")).toEqual({ _meta: { a: 1, "modelcontextprotocol.io/related-task": { taskId: "t1" } } });
    const r = {};
    expect(withRelated(ext, r, "t1")).toBe(r);
  });

  it("declaresClientCapability reads the request's own _meta", async () => {
    const ext = makePlan(await descriptorOf("ext-tasks-2026-07-28"));
    const sep = makePlan(await descriptorOf("sep-1686-draft"));
    const meta = await capabilityMeta("ext-tasks-2026-07-28");
    expect(declaresClientCapability(ext, { _meta: meta })).toBe(true);
    expect(declaresClientCapability(ext, { _meta: { "io.modelcontextprotocol/clientCapabilities": {} } })).toBe(false);
    expect(declaresClientCapability(ext, {})).toBe(false);
    expect(declaresClientCapability(sep, { _meta: meta })).toBe(false);
  });

  it("the task id header: decoded, trimmed, compared with params.taskId; the declared mismatch error", async () => {
    const ext = makePlan(await descriptorOf("ext-tasks-2026-07-28"));
    expect(decodeHeaderValue(" t1 ")).toBe("t1");
    expect(decodeHeaderValue(`=?base64?${Buffer.from("tâche").toString("base64")}?=`)).toBe("tâche");
    expect(decodeHeaderValue("=?base64?@@?=")).toBe("=?base64?@@?=");
    expect(decodeHeaderValue("=?base64?QQ=A?=")).toBeUndefined();
    expect(decodeHeaderValue(undefined)).toBeUndefined();
    expect(() => checkTaskIdHeader(ext, { requestInfo: { headers: { "mcp-name": "t1" } } }, { taskId: "t1" })).not.toThrow();
    expect(() => checkTaskIdHeader(ext, {}, { taskId: "t1" })).not.toThrow();
    expect(() => checkTaskIdHeader(ext, { requestInfo: { headers: { "mcp-name": "t2" } } }, { taskId: "t1" })).toThrow(
      expect.objectContaining({ code: -32020, message: "Header mismatch: Mcp-Name" }),
    );
    expect(() => checkTaskIdHeader(ext, { requestInfo: { headers: {} } }, { taskId: "t1" })).toThrow(expect.objectContaining({ errorName: "headerMismatch" }));
  });

  it("a task id that is no string is left to the params check (-32602), not answered as a header mismatch", async () => {
    const ext = makePlan(await descriptorOf("ext-tasks-2026-07-28"));
    expect(() => checkTaskIdHeader(ext, { requestInfo: { headers: { "mcp-name": "5" } } }, { taskId: 5 })).not.toThrow();
    expect(() => checkTaskIdHeader(ext, { requestInfo: { headers: { "mcp-name": "t1" } } }, {})).not.toThrow();
    expect(() => checkTaskIdHeader(ext, { requestInfo: { headers: {} } }, { taskId: null })).not.toThrow();
  });

  it("isoTime formats like Date, remembered", () => {
    for (const ms of [0, 1, 1_700_000_000_123, 1_700_000_000_123]) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });
});

describe("list cursors", () => {
  it("round-trip for their requestor only; forged or altered cursors are refused", () => {
    const c = signCursor("k", "alice", 42);
    expect(verifyCursor("k", "alice", c)).toBe(42);
    expect(verifyCursor("k", "bob", c)).toBeUndefined();
    expect(verifyCursor("other", "alice", c)).toBeUndefined();
    const forged = `${Buffer.from(JSON.stringify({ v: 1, s: 7 })).toString("base64url")}.${c.split(".")[1]}`;
    expect(verifyCursor("k", "alice", forged)).toBeUndefined();
    expect(verifyCursor("k", "alice", "garbage")).toBeUndefined();
    expect(verifyCursor("k", "alice", `${c}x`)).toBeUndefined();
    expect(verifyCursor("k", "alice", "x".repeat(600))).toBeUndefined();
  });
});
