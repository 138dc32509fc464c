// The runtime package's public API, one report per entry point (runtime/api/<entry>.api.md), made by
// api-extractor from the built declarations (runtime/dist/esm/<entry>.d.ts). The entry points are the
// subpaths runtime/package.json exports. A change of the public API is a diff of these reports.
//
//   npm run api                     build the runtime, then rewrite the reports
//   node scripts/api-report.mjs     rewrite the reports from the current build
//   (test/api-report.test.ts runs checkApiReports(): it fails when a report differs from the build)
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkgDir = join(root, "runtime");
export const REPORT_DIR = join(pkgDir, "api");

/** The public entry points: the subpaths runtime/package.json exports (but its package.json). */
export function entryPoints() {
  const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  return Object.keys(pkg.exports)
    .filter((k) => k !== "./package.json")
    .map((k) => k.slice(2))
    .sort();
}

/** The report's file name of an entry point. */
export const reportName = (entry) => `${entry}.api.md`;

/**
 * Runs api-extractor over each entry point's declarations. `check`: writes nothing into the repository and
 * returns the entry points whose report differs (or is missing), each with the report the build gives.
 */
export async function apiReports({ check = false } = {}) {
  const { CompilerState, Extractor, ExtractorConfig } = await import("@microsoft/api-extractor").catch(() => {
    throw new Error("the API report needs @microsoft/api-extractor, a dev dependency: run `npm ci` at the repository's root");
  });
  const entries = entryPoints();
  const dts = (entry) => join(pkgDir, "dist", "esm", `${entry}.d.ts`);
  const missing = entries.filter((e) => !existsSync(dts(e)));
  if (missing.length > 0) throw new Error(`the runtime's build has no declarations for ${missing.join(", ")}: run \`npm run build\` first`);
  const temp = join(tmpdir(), `mcp-task-gen-api-${process.pid}`);
  mkdirSync(temp, { recursive: true });
  mkdirSync(REPORT_DIR, { recursive: true });
  const configOf = (entry) =>
    ExtractorConfig.prepare({
      configObject: {
        projectFolder: pkgDir,
        mainEntryPointFilePath: dts(entry),
        compiler: { tsconfigFilePath: join(pkgDir, "tsconfig.json") },
        apiReport: { enabled: true, reportFileName: reportName(entry).replace(/\.api\.md$/, ""), reportFolder: REPORT_DIR, reportTempFolder: temp },
        docModel: { enabled: false },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        messages: {
          // What the report says about the API stays in the report (e.g. a type an entry point uses but
          // does not export); nothing is printed.
          extractorMessageReporting: {
            default: { logLevel: "none", addToApiReportFile: true },
            // The package uses no release tags (@public, @beta, ...): every export of an entry point is public.
            "ae-missing-release-tag": { logLevel: "none", addToApiReportFile: false },
            // The report marks an undocumented item "(undocumented)" already; this message would add its line number.
            "ae-undocumented": { logLevel: "none", addToApiReportFile: false },
          },
          compilerMessageReporting: { default: { logLevel: "warning" } },
          tsdocMessageReporting: { default: { logLevel: "none" } },
        },
        newlineKind: "lf",
      },
      configObjectFullPath: join(pkgDir, "api-extractor.json"),
      packageJsonFullPath: join(pkgDir, "package.json"),
    });
  const first = configOf(entries[0]);
  const compilerState = CompilerState.create(first, { additionalEntryPoints: entries.map(dts) });
  const differing = [];
  try {
    for (const entry of entries) {
      const committed = join(REPORT_DIR, reportName(entry));
      const before = existsSync(committed) ? readFileSync(committed, "utf8") : undefined;
      const result = Extractor.invoke(entry === entries[0] ? first : configOf(entry), { localBuild: !check, compilerState, showVerboseMessages: false, messageCallback: (m) => (m.handled = true) });
      if (result.errorCount > 0) throw new Error(`api-extractor failed on ${entry}: ${result.errorCount} errors`);
      const built = readFileSync(join(temp, reportName(entry)), "utf8");
      if (before !== built) differing.push({ entry, built });
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  if (!check) {
    // A report of an entry point no longer exported goes with it.
    const wanted = new Set(entries.map(reportName));
    for (const name of readdirSync(REPORT_DIR)) if (name.endsWith(".api.md") && !wanted.has(name)) rmSync(join(REPORT_DIR, name));
  }
  return differing;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const changed = await apiReports();
  const list = changed.length === 0 ? "none changed" : `rewrote ${changed.map((c) => reportName(c.entry)).join(", ")}`;
  writeFileSync(process.stdout.fd, `the API reports of ${entryPoints().length} entry points, runtime/api/: ${list}\n`);
}
