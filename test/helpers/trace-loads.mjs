// Preloaded with `node --import` by test/helpers/cli.ts (cliTraced): appends the URL of every module
// the process (and its worker threads) imports to the file named by $MCP_TASK_GEN_TEST_TRACE_LOADS, so
// a test can tell whether a run loaded the compiler without timing it.
import { register } from "node:module";

if (process.env.MCP_TASK_GEN_TEST_TRACE_LOADS) {
  register(new URL("./trace-loads-hooks.mjs", import.meta.url), { data: { file: process.env.MCP_TASK_GEN_TEST_TRACE_LOADS } });
}
