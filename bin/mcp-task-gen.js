#!/usr/bin/env node
// The mcp-task-gen command. The compiler itself lives in dist/ (built from generator/ by `npm run build`).
import { main } from "../dist/generator/cli.js";

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    // Only a bug in mcp-task-gen lands here: a user's mistake is reported as a diagnostic.
    process.stderr.write(`mcp-task-gen: internal error (please report it): ${error?.stack ?? error}\n`);
    process.exitCode = 70;
  },
);
