/**
 * conform's look at every error a server answers (rule `error-message`): a message that says what went wrong,
 * each placeholder of a declared message filled. Pure: the check is given the errors a session kept, no server
 * is started.
 */
import { describe, expect, it } from "vitest";
import { specModel } from "../generator/conform/model.js";
import { ViolationError } from "../generator/conform/report.js";
import { checkErrorMessages, informative } from "../generator/conform/rules/error-message.js";
import { irOf } from "./helpers/conform.js";

const sep = specModel(irOf("sep-1686-draft"));
const ext = specModel(irOf("ext-tasks-2026-07-28"));

/** The violation the check throws for one error answered to `method`, or undefined where it holds. */
function verdict(model: typeof sep, method: string, code: number, message: string): string | undefined {
  try {
    checkErrorMessages(model, [{ method, error: { code, message } }]);
    return undefined;
  } catch (e) {
    if (!(e instanceof ViolationError)) throw e;
    expect(e.violation.rule).toBe("error-message");
    return e.violation.message;
  }
}

describe("every error the server answers says what went wrong", () => {
  it("a message that names no cause is not informative: nothing, blanks, a number, the word error", () => {
    for (const bare of ["", "   ", "-32602", "Error", "error.", "Unknown error", "An error occurred", "Error -32602", "Error: 500", "ERROR!"]) expect(informative(bare), bare).toBe(false);
    for (const told of ["Failed to retrieve task: Task not found", "Internal error", "Invalid cursor", "Method not found", "Invalid params for tasks/get: taskId: required", "任务未找到", "Error: task 7 not found"]) expect(informative(told), told).toBe(true);
  });

  it("holds for the errors the demos answer, whatever the request", () => {
    expect(verdict(sep, "tasks/get", -32602, "Failed to retrieve task: Task not found")).toBeUndefined();
    expect(verdict(sep, "tasks/delete", -32602, "Invalid params for tasks/delete: taskId: Invalid input: expected string, received number")).toBeUndefined();
    expect(verdict(sep, "tools/call", -32603, "Tool execution failed: API rate limit exceeded")).toBeUndefined();
    expect(verdict(sep, "tasks/result", -32602, "Cannot retrieve result: Task status is 'failed', not 'completed'")).toBeUndefined();
    expect(verdict(ext, "subscriptions/listen", -32021, "Missing required client capability")).toBeUndefined();
    expect(verdict(sep, "tasks/get", -32010, "Rate limit exceeded: poll")).toBeUndefined();
  });

  it("fails a bare message, whatever request it answers", () => {
    expect(verdict(sep, "tools/call", -32602, "Error")).toMatch(/tools\/call answered error -32602 with the message "Error", which does not say what went wrong/);
    expect(verdict(ext, "tasks/update", -32602, "")).toMatch(/does not say what went wrong/);
  });

  it("fails a declared message whose placeholder is left unfilled", () => {
    expect(verdict(sep, "tasks/result", -32602, "Cannot retrieve result: Task status is '{status}', not 'completed'")).toMatch(/leaves the placeholder \{status\}/);
  });

  it("leaves an error no check expects to the server's own words where its code is declared: the code does not tell which cause", () => {
    expect(verdict(sep, "tasks/get", -32602, "Invalid params: taskId must be a string")).toBeUndefined();
    // Core MCP defines -32020 and leaves its text free: the SDK's transport words its own.
    expect(verdict(ext, "tasks/get", -32020, "Bad Request: the request headers and body disagree on the protocol version")).toBeUndefined();
  });
});
