/**
 * The messages the validator benchmarks check, taken from each spec's own
 * `examples` (which the test suite proves valid), so they are valid for the
 * spec they belong to.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";

export const ROOT = join(import.meta.dirname, "..");
/** The spec the SDK 1.32 speaks: its schemas are compared with our output of it first. */
export const SDK_SPEC = "mcp-2025-11-25";

interface Example {
  name: string;
  kind: string;
  method?: string;
  message?: Record<string, any>;
}

export interface Messages {
  /** A full JSON-RPC tasks/get request. */
  getRequest: Record<string, any>;
  /** The result of tasks/get. */
  getResult: Record<string, any>;
  /** The result of tasks/list with 100 tasks, or undefined if the spec has no tasks/list. */
  list100?: Record<string, any>;
  /** A tasks/get result with a status no revision has. */
  invalid: Record<string, any>;
}

/** The spec's example value of a `meta` example of the given type, if any. */
export function metaExample(spec: string, type: string): unknown {
  return examples(spec).find((x) => x.kind === "meta" && (x as { type?: string }).type === type)?.message;
}

function examples(spec: string): Example[] {
  const doc = parse(readFileSync(join(ROOT, "spec", `${spec}.yaml`), "utf8")) as { examples?: Example[] };
  return doc.examples ?? [];
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

export function messagesOf(spec: string): Messages {
  const ex = examples(spec);
  const find = (kind: string, method: string) => {
    const e = ex.find((x) => x.kind === kind && x.method === method && x.message);
    if (!e) throw new Error(`${spec}: no ${kind} example for ${method}`);
    return e.message!;
  };
  const getRequest = clone(find("request", "tasks/get"));
  const getResult = clone(find("result", "tasks/get").result);
  const listEx = ex.find((x) => x.kind === "result" && x.method === "tasks/list" && x.message);
  let list100: Record<string, any> | undefined;
  if (listEx) {
    const base = listEx.message!.result as { tasks: Record<string, any>[] };
    const tasks = Array.from({ length: 100 }, (_, i) => ({ ...clone(base.tasks[i % base.tasks.length]), taskId: `task-${String(i).padStart(4, "0")}` }));
    list100 = { ...clone(base), tasks };
  }
  const invalid = { ...clone(getResult), status: "done" };
  return { getRequest, getResult, list100, invalid };
}
