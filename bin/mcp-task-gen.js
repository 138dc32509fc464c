#!/usr/bin/env node
// The mcp-task-gen command. The compiler itself lives in dist/ (built from generator/ by `npm run build`).
//
// 1. A command whose targets are all known to be up to date is answered without loading the CLI or the
//    compiler (generator/fastpath.ts): it prints what the full run would print.
// 2. Otherwise the CLI loads the compiler, which prints every file already laid out (no prettier: a cold
//    generate is the compile itself).
// 3. The plain forms of generate, check and the default command run without loading yargs (the same
//    functions as after yargs parsed them); every other command line goes through yargs.
// 4. Each command's module (dist/generator/cli/) is loaded only when that command runs: the help and the
//    commands that only read a spec load no emitter, no template engine and no conform code.
// 5. `generate` runs its path from one script that the build bundled (dist/generate.cjs), with V8's code
//    cache of a whole earlier run (generator/launch.ts, bundled as dist/launch.cjs), when the build is as it
//    was built and there is a cache folder; otherwise from the modules. This file and both scripts are
//    CommonJS, so that this path starts without Node's ES module loader.
//
// Node 22.1 and later keep the compiled code of the modules it loads in a cache on disk (module.enableCompileCache:
// os.tmpdir()/node-compile-cache, or $NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1 turns it off), so that a
// later run skips compiling them again. An older Node has no such cache and runs as before.
const nodeModule = require("node:module");
nodeModule.enableCompileCache?.();
const argv = process.argv.slice(2);
// A reader that stops early (`mcp-task-gen codes | head -1`) closes the pipe: the rest of the output has
// nowhere to go, which is no error of the command's. Exit quietly, as command-line tools do. Node makes
// each stream when it is first used: the handler is added then, so that a run that writes nothing to one
// (generate --quiet) does not load Node's stream modules for it.
const quietOnEpipe = (stream) =>
  stream.on("error", (error) => {
    if (error?.code !== "EPIPE") throw error;
    process.exit(process.exitCode ?? 0);
  });
for (const name of ["stdout", "stderr"]) {
  const made = Object.getOwnPropertyDescriptor(process, name);
  if (typeof made?.get !== "function" || made.configurable !== true) {
    quietOnEpipe(process[name]);
    continue;
  }
  let stream;
  Object.defineProperty(process, name, {
    configurable: true,
    enumerable: made.enumerable,
    get() {
      if (stream === undefined) stream = quietOnEpipe(made.get.call(process));
      return stream;
    },
  });
}
let bundled;
if (argv[0] === "generate") {
  try {
    bundled = require("../dist/launch.cjs").generatePath();
  } catch {
    bundled = undefined;
  }
}
main();

async function main() {
  let fast = bundled?.fast;
  if (fast === undefined) {
    try {
      fast = await import("../dist/generator/fastpath.js");
    } catch {
      fast = undefined;
    }
  }
  const command = fast?.parseCommand(argv);
  const answered = await fast?.fastMain(command, fast.stdIo());

  if (answered !== undefined) {
    process.exitCode = answered;
  } else {
    const cli = bundled?.cli ?? (await import("../dist/generator/cli/index.js").catch((error) => {
      if (error?.code !== "ERR_MODULE_NOT_FOUND" || !String(error?.message).includes("dist/generator/cli/index.js")) throw error;
      // A checkout that was not built: the package as installed always has dist/.
      process.stderr.write("mcp-task-gen: dist/ is not built: run `npm run build` in this checkout (after `npm ci`)\n");
      process.exit(2);
    }));
    (command ? cli.runCommand(command) : cli.main())
      .then(
        (code) => {
          process.exitCode = code;
          if (code === 0) bundled?.saveCodeCache();
        },
        (error) => {
          // Only a bug in mcp-task-gen lands here: a user's mistake is reported as a diagnostic.
          process.stderr.write(`mcp-task-gen: internal error (please report it): ${error?.stack ?? error}\n`);
          process.exitCode = 70;
        },
      );
  }
}
