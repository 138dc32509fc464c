// StrykerJS on one runtime module with `conform` as the test (npm run stryker; BENCHMARKS.md): every mutant
// of the module is served by the demo of each built-in spec and judged by conform on the wire alone.
//   STRYKER_MODULE=cursor npm run stryker          # another module (default: machine, runtime/machine.ts)
//   STRYKER_MUTATE=runtime/machine.ts:51-53,runtime/machine.ts:176-223 npm run stryker   # only some lines of it
const module = process.env.STRYKER_MODULE ?? "machine";

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "command",
  commandRunner: { command: `bash scripts/stryker-conform.sh ${module}` },
  mutate: (process.env.STRYKER_MUTATE ?? `runtime/${module}.ts`).split(","),
  // The command runner cannot tell which mutants a run reaches: every mutant is run.
  coverageAnalysis: "off",
  // Two cores: one conform and one demo process per mutant at a time each.
  concurrency: Number(process.env.STRYKER_CONCURRENCY ?? 2),
  // A conform run waits for work of 0.2 s to end and its answers; a mutant that stalls the server is a timeout.
  timeoutMS: 60_000,
  timeoutFactor: 2,
  tempDirName: ".stryker-tmp",
  ignorePatterns: ["conformance", "coverage", ".tmp", "bench/results", "reports"],
  reporters: ["clear-text", "progress", "json", "html"],
  jsonReporter: { fileName: `reports/stryker/${module}.json` },
  htmlReporter: { fileName: `reports/stryker/${module}.html` },
  cleanTempDir: "always",
};
