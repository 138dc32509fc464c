// Preloaded with `node --import` by test/helpers/cli.ts (cliTraced): appends the URL of every module
// the process (and its worker threads) imports to the file named by $MCP_TASK_GEN_TEST_TRACE_LOADS, so
// a test can tell whether a run loaded the compiler without timing it. The import hooks see what is
// imported; what CommonJS modules require (a package's own files, Handlebars, which the emitters
// require) is in the require cache, listed when the thread exits; a script run with node:vm (the generate
// path's bundle, generator/launch.ts) is listed by its file name when it is compiled.
import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";
import { pathToFileURL } from "node:url";
import vm from "node:vm";

const file = process.env.MCP_TASK_GEN_TEST_TRACE_LOADS;
if (file) {
  register(new URL("./trace-loads-hooks.mjs", import.meta.url), { data: { file } });
  const Script = vm.Script;
  vm.Script = class extends Script {
    constructor(code, options) {
      if (typeof options?.filename === "string") appendFileSync(file, `${pathToFileURL(options.filename).href}\n`);
      super(code, options);
    }
  };
  const required = createRequire(import.meta.url).cache;
  process.on("exit", () => {
    const urls = Object.keys(required).map((path) => `${pathToFileURL(path).href}\n`);
    if (urls.length > 0) appendFileSync(file, urls.join(""));
  });
}
