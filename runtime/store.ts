// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
// The task store: the `TaskStore` interface the server scaffold talks to
// (store-types.ts) and the in-memory implementation (store-memory.ts).
export * from "./store-types.js";
export * from "./store-memory.js";
