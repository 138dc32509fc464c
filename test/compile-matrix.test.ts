/**
 * What `generate` writes (the generated files, which import the runtime package) compiles under the
 * settings a user's project may have: the tsconfig `tsc --init` writes (TypeScript 5.9 and 6), a strict
 * ES-module project with every optional strictness flag of note, CommonJS by `module: node16` in a
 * package without `"type": "module"`, and classic CommonJS (`module: commonjs`, `target: es2020`,
 * `moduleResolution: node10`; TypeScript reads a folder with no package.json above it the same way). Every
 * built-in spec and every fixture spec is generated once (output-samples/ is checked to be the same output); each
 * setting is one tsc process over all their output folders (the folders of a setting share the
 * declarations of zod and the SDK, read once). docs/cli.md states these settings as the supported ones.
 */
import { cpSync, mkdirSync, readdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, isAbsolute, join, relative, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listFiles } from "../generator/fsout.js";
import { builtinSpecs } from "../generator/specs.js";
import { BIN, ROOT, run, tempDirs } from "./helpers/cli.js";

const TSC5 = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const TSC6 = join(ROOT, "node_modules", "typescript6", "bin", "tsc");

const SPECS = [
  ...builtinSpecs().map((name) => join(ROOT, "spec", `${name}.yaml`)),
  ...readdirSync(join(ROOT, "test", "fixtures", "specs")).filter((f) => f.endsWith(".yaml")).map((f) => join(ROOT, "test", "fixtures", "specs", f)),
].sort();
const NAMES = SPECS.map((s) => basename(s, ".yaml"));

interface Setting {
  name: string;
  /** `esm`: a package with `"type": "module"`; `cjs`: one without. */
  project: "esm" | "cjs";
  tsc: string;
  /** The tsconfig `tsc --init` of `tsc` writes, extended; otherwise these compiler options. */
  init?: true;
  options?: Record<string, unknown>;
}

const SETTINGS: Setting[] = [
  { name: "tsc --init of TypeScript 5.9", project: "esm", tsc: TSC5, init: true },
  { name: "tsc --init of TypeScript 6", project: "esm", tsc: TSC6, init: true },
  {
    name: "strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess, noImplicitOverride, noUnused*, noImplicitReturns (ESM, nodenext)",
    project: "esm",
    tsc: TSC5,
    options: {
      module: "nodenext",
      target: "es2022",
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      noImplicitOverride: true,
      noPropertyAccessFromIndexSignature: false,
      noUnusedLocals: true,
      noUnusedParameters: true,
      noImplicitReturns: true,
      noFallthroughCasesInSwitch: true,
      // The declarations of zod, the SDK and Node are checked as well, under these flags.
      skipLibCheck: false,
      types: ["node"],
    },
  },
  {
    name: "CommonJS by module node16 (no \"type\": \"module\")",
    project: "cjs",
    tsc: TSC5,
    options: { module: "node16", target: "es2022", strict: true, exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true, skipLibCheck: true, types: ["node"] },
  },
  {
    name: "classic CommonJS: module commonjs, target es2020, moduleResolution node10",
    project: "cjs",
    tsc: TSC5,
    options: { module: "commonjs", target: "es2020", moduleResolution: "node10", esModuleInterop: true, strict: true, skipLibCheck: true, types: ["node"] },
  },
];

const dirs = tempDirs("mcp-task-gen-compile-matrix-");
afterAll(() => dirs.cleanup());

let work: string;
const started = Date.now();

beforeAll(async () => {
  work = realpathSync(dirs.make());
  for (const project of ["esm", "cjs"] as const) {
    mkdirSync(join(work, project));
    const pkg = { name: `consumer-${project}`, version: "1.0.0", private: true, ...(project === "esm" ? { type: "module" } : {}) };
    writeFileSync(join(work, project, "package.json"), JSON.stringify(pkg, null, 2));
    // The packages the output imports, from this checkout.
    symlinkSync(join(ROOT, "node_modules"), join(work, project, "node_modules"), "dir");
  }
  for (const [i, spec] of SPECS.entries()) {
    const r = await run(process.execPath, [BIN, "generate", "--spec", spec, "--out", join("out", NAMES[i]!), "--quiet"], {
      cwd: join(work, "esm"),
      env: { MCP_TASK_GEN_CACHE: "off" },
      timeoutMs: 120_000,
    });
    expect(r.code, r.stderr).toBe(0);
  }
  cpSync(join(work, "esm", "out"), join(work, "cjs", "out"), { recursive: true });
}, 300_000);

/** Runs the settings two at a time: each is a tsc process of its own, and a CI runner has two cores. */
const slots = { free: 2, queue: [] as (() => void)[] };
async function slot<T>(f: () => Promise<T>): Promise<T> {
  if (slots.free === 0) await new Promise<void>((r) => slots.queue.push(r));
  else slots.free--;
  try {
    return await f();
  } finally {
    const next = slots.queue.shift();
    if (next) next();
    else slots.free++;
  }
}

describe.concurrent("the output of every spec compiles", () => {
  for (const [i, setting] of SETTINGS.entries()) {
    it(setting.name, async () => {
      const dir = join(work, setting.project);
      const config = `tsconfig.${i}.json`;
      await slot(async () => {
        let base: Record<string, unknown> = { compilerOptions: setting.options };
        if (setting.init) {
          // tsc --init writes tsconfig.json into its working directory: exactly what a user starts from.
          const initDir = join(dir, `init-${i}`);
          mkdirSync(initDir);
          const init = await run(process.execPath, [setting.tsc, "--init"], { cwd: initDir });
          expect(init.code, init.stdout + init.stderr).toBe(0);
          base = { extends: `./init-${i}/tsconfig.json` };
        }
        writeFileSync(
          join(dir, config),
          JSON.stringify({ ...base, compilerOptions: { ...(base.compilerOptions as object | undefined), noEmit: true }, include: ["out/**/*.ts"] }, null, 2),
        );
        const t0 = Date.now();
        const tsc = await run(process.execPath, [setting.tsc, "-p", config, "--pretty", "false", "--listFiles"], { cwd: dir, timeoutMs: 600_000 });
        console.log(`${setting.name}: tsc ${((Date.now() - t0) / 1000).toFixed(1)} s`);
        // --listFiles prints the absolute path of every file read; an error is a line of its own, its
        // details indented on the lines after it.
        const listed = new Set<string>();
        const errors: string[] = [];
        for (const line of tsc.stdout.split("\n")) {
          if (line.trim() === "") continue;
          if (isAbsolute(line)) listed.add(relative(dir, line).split(sep).join("/"));
          else if (/^\s/.test(line) && errors.length > 0) errors[errors.length - 1] += `\n${line}`;
          else errors.push(line);
        }
        // Every file of every output folder was compiled: a passing run is not one that read nothing.
        for (const name of NAMES) {
          const files = listFiles(join(dir, "out", name)).filter((f) => f.endsWith(".ts"));
          expect(files.length, name).toBeGreaterThanOrEqual(12);
          expect(files.filter((f) => !listed.has(`out/${name}/${f}`)), name).toEqual([]);
        }
        // The runtime, as the installed package gives it to this kind of project: its declarations, of the
        // ES-module build or of the CommonJS one (never its TypeScript sources).
        const runtime = [...listed].filter((f) => /runtime\/(dist\/(esm|cjs)\/)?[a-z-]+\.(d\.)?ts$/.test(f) && !f.includes("/out/"));
        expect(runtime.length).toBeGreaterThan(10);
        expect(runtime.filter((f) => !f.includes(`/runtime/dist/${setting.project}/`) || !f.endsWith(".d.ts"))).toEqual([]);
        // The matrix: the errors by spec (none expected), and those of no output folder (options, globals).
        const bySpec = Object.fromEntries(NAMES.map((n) => [n, errors.filter((e) => e.startsWith(`out/${n}/`))]));
        expect({ ...bySpec, other: errors.filter((e) => !NAMES.some((n) => e.startsWith(`out/${n}/`))) }).toEqual({
          ...Object.fromEntries(NAMES.map((n) => [n, []])),
          other: [],
        });
        expect(tsc.stderr).toBe("");
        expect(tsc.code).toBe(0);
      });
    }, 900_000);
  }
});

afterAll(() => console.log(`compile matrix: ${SETTINGS.length} settings x ${NAMES.length} specs in ${((Date.now() - started) / 1000).toFixed(1)} s`));
