#!/usr/bin/env node
// The mcp-task-gen command. The compiler itself lives in dist/ (built from generator/ by `npm run build`).
// A `generate --spec S --out D` that is known to change nothing is answered from a stamp without loading
// the compiler (see generator/fastpath.ts); every other command, and every doubt, takes the full path.
const argv = process.argv.slice(2);
let fast;
try {
  fast = await import("../dist/generator/fastpath.js");
} catch {
  fast = undefined;
}
const snap = fast?.snapshot(argv, process.cwd());
const recorded = fast?.replay(snap);

if (recorded !== undefined) {
  process.stdout.write(recorded);
  process.exitCode = 0;
} else {
  const { main } = await import("../dist/generator/cli.js");
  const seen = snap ? capture() : undefined;
  main().then(
    (code) => {
      process.exitCode = code;
      if (seen) fast.record(snap, { code, ...seen.stop() });
    },
    (error) => {
      seen?.stop();
      // Only a bug in mcp-task-gen lands here: a user's mistake is reported as a diagnostic.
      process.stderr.write(`mcp-task-gen: internal error (please report it): ${error?.stack ?? error}\n`);
      process.exitCode = 70;
    },
  );
}

/** Tees stdout and stderr while a full run that may be recorded runs. */
function capture() {
  const chunks = { stdout: [], stderr: [] };
  const original = { stdout: process.stdout.write, stderr: process.stderr.write };
  for (const name of ["stdout", "stderr"]) {
    const stream = process[name];
    stream.write = function (chunk, ...rest) {
      chunks[name].push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
      return original[name].call(this, chunk, ...rest);
    };
  }
  return {
    stop() {
      process.stdout.write = original.stdout;
      process.stderr.write = original.stderr;
      return { stdout: chunks.stdout.join(""), stderr: chunks.stderr.join("") };
    },
  };
}
