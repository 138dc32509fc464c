/**
 * generator/update-user-files.ts on small handler files (no install, no tsc):
 * it only inserts (stubs, imports, markers) and removes its own obsolete
 * markers; everything else stays byte for byte.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { contractOf, type Contract } from "../generator/emit/contract.js";
import { analyze } from "../generator/pipeline.js";
import { resolveSpec } from "../generator/specs.js";
import { planUserFileUpdates } from "../generator/update-user-files.js";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { ROOT, tempDirs } from "./helpers/cli.js";

const dirs = tempDirs("mcp-task-gen-update-");
afterAll(() => dirs.cleanup());

function contract(spec: string): Contract {
  const r = resolveSpec(spec);
  if (!r.ok) throw new Error(r.message);
  const { ir } = analyze(r.source);
  if (!ir) throw new Error(`${spec} does not compile`);
  return contractOf(ir);
}

/** Plans the update of one handlers file; returns its new text (or the old one) and the report. */
async function update(text: string, spec: string, file = "index.ts") {
  const project = dirs.make();
  const handlersDir = join(project, "src", "handlers");
  mkdirSync(handlersDir, { recursive: true });
  writeFileSync(join(handlersDir, file), text);
  const report = await planUserFileUpdates({
    contract: contract(spec),
    projectDir: project,
    handlersDir,
    contractFile: join(project, "src", "tasks", "handlers.ts"),
  });
  const u = report.updates.find((x) => x.path === `src/handlers/${file}`);
  expect(readFileSync(join(handlersDir, file), "utf8"), "planning writes nothing").toBe(text);
  return { text: u ? u.after : text, report };
}

const SEED = "sep-1686-draft";
const V2025 = "mcp-2025-11-25";

describe("contractOf", () => {
  it("derives the members from the declared behaviour", () => {
    const seed = contract(SEED);
    expect(seed.members.map((m) => m.name)).toEqual(["tools", "listResources", "readResource", "listPrompts", "getPrompt"]);
    expect(seed.context.map((c) => c.name)).toEqual(["elicit", "sample"]);
    expect(seed.tool).toBeUndefined();
    expect(seed.lifecycle).toBe("initialize");
    const v2025 = contract(V2025);
    expect(v2025.members.map((m) => m.name)).toEqual(["tools"]);
    expect(v2025.tool).toMatchObject({ member: "taskSupport", required: true, field: "execution.taskSupport" });
    const ext = contract("ext-tasks-2026-07-28");
    expect(ext.context.map((c) => c.name)).toEqual(["elicit", "sample", "listRoots"]);
    expect(ext.tool).toMatchObject({ member: "taskSupport", required: false });
    expect(ext.lifecycle).toBe("per-request");
  });
});

describe("planUserFileUpdates", () => {
  const empty = [
    `import type { ServerHandlers } from "../tasks/handlers.js";`,
    `import { echo } from "./echo.js";`,
    ``,
    `// A comment of mine.`,
    `export class Handlers implements ServerHandlers {`,
    `  readonly tools = [echo]; // mine`,
    ``,
    `  /** A helper of mine. */`,
    `  private helper(): number {`,
    `    return 42;`,
    `  }`,
    `}`,
    ``,
  ].join("\n");

  it("adds stubs and their imports by inserting whole lines; user members are not touched", async () => {
    const { text, report } = await update(empty, SEED);
    expect(report.warnings).toEqual([]);
    const lines = text.split("\n");
    // Every original line is still there, in order.
    let i = 0;
    for (const l of lines) if (l === empty.split("\n")[i]) i++;
    expect(i).toBe(empty.split("\n").length);
    expect(lines[2]).toMatch(/^import \{ notImplemented, type GetPromptRequest, .* \} from "\.\.\/tasks\/handlers\.js";$/);
    expect(text).toContain("  private helper(): number {\n    return 42;\n  }\n\n  async listResources(): Promise<ListResourcesResult> {");
    expect(text).not.toContain("'helper'");
    // Idempotent.
    const again = await update(text, SEED);
    expect(again.report.updates).toEqual([]);
  });

  it("marks removed members above their doc comment, replaces its own markers when the spec changes, and removes them when the member is back", async () => {
    const seedClass = (await update(empty, SEED)).text;
    const marked = (await update(seedClass, V2025)).text;
    expect(marked).toContain(
      `  // mcp-task-gen: 'readResource' is no longer part of the contract of spec ${V2025}; remove it or keep it as plain code\n  async readResource(`,
    );
    const remarked = (await update(marked, "ext-tasks-2026-07-28")).text;
    expect(remarked).not.toContain(V2025);
    expect(remarked.match(/mcp-task-gen: '/g)).toHaveLength(4);
    const back = (await update(remarked, SEED)).text;
    expect(back).toBe(seedClass);
  });

  it("adds a typed stub for each custom operation of a spec of one's own", async () => {
    const { text, report } = await update(empty, "test/fixtures/specs/jobs.yaml");
    expect(report.warnings).toEqual([]);
    expect(text).toMatch(/^import \{ .*type CustomOperations.*type OperationContext.* \} from "\.\.\/tasks\/handlers\.js";$/m);
    expect(text).toContain('  async jobsNote(params: CustomOperations["jobs/note"]["params"], _ctx: OperationContext): Promise<CustomOperations["jobs/note"]["result"]> {');
    expect(text).toContain('throw notImplemented("jobsNote", JSON.stringify(params));');
    expect((await update(text, "test/fixtures/specs/jobs.yaml")).report.updates).toEqual([]);
  });

  it("marks the member of a custom operation the spec no longer declares, and unmarks it when the operation is back", async () => {
    const jobs = "test/fixtures/specs/jobs.yaml";
    const withNote = (await update(empty, jobs)).text;
    const dir = dirs.make();
    const doc = parseYaml(readFileSync(join(ROOT, jobs), "utf8")) as { methods: Record<string, unknown>; examples?: { method?: string }[] };
    delete doc.methods["jobs/note"];
    doc.examples = (doc.examples ?? []).filter((e) => e.method !== "jobs/note");
    writeFileSync(join(dir, "jobs.yaml"), stringifyYaml(doc));
    const { text, report } = await update(withNote, join(dir, "jobs.yaml"));
    expect(text).toContain(
      "  // mcp-task-gen: 'jobsNote' is no longer part of the contract of spec jobs; remove it or keep it as plain code\n  async jobsNote(",
    );
    expect(report.updates[0]!.notes).toContain("marked Handlers.jobsNote: no longer part of the contract of spec jobs");
    // The user's own helper, typed by nothing of the contract, is left alone.
    expect(text).toContain("  /** A helper of mine. */\n  private helper(): number {");
    expect((await update(text, jobs)).text).toBe(withNote);
  });

  it("handles a one-line class body", async () => {
    const { text } = await update(`import type { ServerHandlers } from "../tasks/handlers.js";\nexport class H implements ServerHandlers {}\n`, V2025);
    expect(text).toBe(
      [
        `import type { ServerHandlers } from "../tasks/handlers.js";`,
        `import { type ToolDefinition } from "../tasks/handlers.js";`,
        `export class H implements ServerHandlers {`,
        `  // TODO(mcp-task-gen): stub added for spec ${V2025}; list your tools (defineTool) here.`,
        `  readonly tools: readonly ToolDefinition[] = [];`,
        `}`,
        ``,
      ].join("\n"),
    );
  });

  it("marks a tool property the contract no longer has, and a tool that lacks a required one", async () => {
    const tool = [
      `import { defineTool } from "../tasks/handlers.js";`,
      ``,
      `export const a = defineTool({`,
      `  name: "a",`,
      `  taskSupport: "optional", // why not`,
      `  handler: async () => ({ content: [] }),`,
      `});`,
      ``,
      `export const list = [defineTool({ name: "b", handler: async () => ({ content: [] }) })];`,
      ``,
    ].join("\n");
    const seed = (await update(tool, SEED, "tools.ts")).text;
    expect(seed).toContain(
      `  // mcp-task-gen: 'taskSupport' is no longer part of the tool contract of spec ${SEED}; remove it or keep it as plain code\n  taskSupport: "optional", // why not`,
    );
    const v2025 = (await update(seed, V2025, "tools.ts")).text;
    expect(v2025).toBe(
      tool.replace(
        `export const list`,
        `// mcp-task-gen: spec ${V2025} asks every tool for 'taskSupport' ("forbidden" | "optional" | "required"); declare it in this tool\nexport const list`,
      ),
    );
  });

  it("leaves a file that does not parse alone, with a warning", async () => {
    const broken = `export class H implements ServerHandlers {\n  async readResource( {\n}\n`;
    const { text, report } = await update(broken, V2025);
    expect(text).toBe(broken);
    expect(report.warnings[0]).toMatch(/src\/handlers\/index\.ts: does not parse; left as it is/);
  });

  it("warns when no class implements ServerHandlers", async () => {
    const { report } = await update(`export const x = 1;\n`, SEED);
    expect(report.warnings).toEqual([
      "no class under src/handlers/ implements ServerHandlers; the contract of spec sep-1686-draft has: tools, listResources, readResource, listPrompts, getPrompt",
    ]);
  });
});
