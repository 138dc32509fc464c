#!/usr/bin/env node
// The mcp-task-gen command. The compiler itself lives in dist/ (built from generator/ by `npm run build`).
//
// 1. A command whose targets are all known to be up to date is answered without loading the CLI or the
//    compiler (generator/fastpath.ts): it prints what the full run would print.
// 2. Otherwise a command that compiles starts a format worker first thing (generator/formatter.ts): it
//    loads and warms up prettier on the other core while this thread loads the compiler, checks the spec
//    and renders the files, which it then formats as they come (MCP_TASK_GEN_FORMAT_WORKER=off: in this
//    thread instead).
// 3. The plain forms of generate, check and the default command run without loading yargs (the same
//    functions as after yargs parsed them); every other command line goes through yargs.
const argv = process.argv.slice(2);
let fast;
try {
  fast = await import("../dist/generator/fastpath.js");
} catch {
  fast = undefined;
}
const command = fast?.parseCommand(argv);
const answered = await fast?.fastMain(command, fast.stdIo());

if (answered !== undefined) {
  process.exitCode = answered;
} else {
  let worker;
  if (fast?.compiles(argv) && !/^(off|0|false|no)$/i.test(process.env.MCP_TASK_GEN_FORMAT_WORKER ?? "")) {
    try {
      worker = (await import("../dist/generator/formatter.js")).startFormatWorker();
    } catch {
      worker = undefined;
    }
  }
  const cli = await import("../dist/generator/cli.js");
  const opts = { formatter: worker?.format };
  (command ? cli.runCommand(command, undefined, opts) : cli.main(undefined, undefined, opts))
    .then(
      (code) => {
        process.exitCode = code;
      },
      (error) => {
        // Only a bug in mcp-task-gen lands here: a user's mistake is reported as a diagnostic.
        process.stderr.write(`mcp-task-gen: internal error (please report it): ${error?.stack ?? error}\n`);
        process.exitCode = 70;
      },
    )
    .finally(() => worker?.close());
}
