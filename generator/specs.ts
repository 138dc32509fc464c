/**
 * Built-in specs and spec resolution: a built-in name, or a path to a file.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { packageFolder } from "./package-folder.js";
import { diag, type Diagnostic } from "./diagnostics.js";
import { MAX_SPEC_BYTES, tooLarge, type SourceFile } from "./source.js";

/**
 * The spec used when none is named (generate, check, validate, init): the revision the clients people
 * use speak (SDK 1.23 to 1.32 clients, the Inspector, desktop clients), so generated code talks to them
 * from the first minute. The other built-in specs are named with --spec.
 */
export const DEFAULT_SPEC = "mcp-2025-11-25";
/** The spec `init` scaffolds by default (the same). */
export const INIT_DEFAULT_SPEC = DEFAULT_SPEC;
export const DEFAULT_OUT = "mcp-tasks";

export function specDir(): string {
  return packageFolder("spec", "sep-1686-draft.yaml");
}

/** The files of the spec folder that are about the format, not specs of it: its coverage matrix. */
export const FORMAT_FILES: readonly string[] = ["format-coverage.yaml"];

/** Names of the built-in specs, sorted. */
export function builtinSpecs(): string[] {
  return readdirSync(specDir())
    .filter((f) => f.endsWith(".yaml") && !f.includes("schema") && !FORMAT_FILES.includes(f))
    .map((f) => f.slice(0, -".yaml".length))
    .sort();
}

/**
 * A failure carries `diagnostic` (MTG001) when the argument names a file that
 * cannot be read (a spec error, exit 1); without it, the argument is neither a
 * built-in name nor a path (a usage error, exit 2).
 */
export type Resolved =
  | { ok: true; source: SourceFile; builtin: boolean }
  | { ok: false; message: string; diagnostic?: Diagnostic };

/** A built-in name or a path; `display` is how diagnostics name the file. */
export function resolveSpec(nameOrPath: string, cwd = process.cwd()): Resolved {
  const builtins = builtinSpecs();
  if (builtins.includes(nameOrPath)) {
    const file = join(specDir(), `${nameOrPath}.yaml`);
    return { ok: true, builtin: true, source: { file: displayPath(file, cwd), text: readFileSync(file, "utf8") } };
  }
  const path = resolve(cwd, nameOrPath);
  const looksLikePath = /[/\\.]/.test(nameOrPath);
  if (existsSync(path) || looksLikePath) {
    try {
      // The size first: an oversized file is refused without reading it.
      const st = statSync(path);
      if (st.isFile() && st.size > MAX_SPEC_BYTES) {
        const d = tooLarge(displayPath(path, cwd), st.size);
        return { ok: false, message: `${d.location!.file}: ${d.message}`, diagnostic: d };
      }
      return { ok: true, builtin: false, source: { file: displayPath(path, cwd), text: readFileSync(path, "utf8") } };
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      const why =
        err.code === "ENOENT"
          ? "no such file; check the path, or run 'npx mcp-task-gen list-specs' for the built-in specs"
          : err.code === "EISDIR"
            ? "it is a directory; name a spec file (YAML or JSON) inside it"
            : `${err.code ?? "error"}: ${err.message.split("\n")[0]}; check the file's permissions`;
      const file = displayPath(path, cwd);
      const message = `cannot read the spec file: ${why}`;
      return { ok: false, message: `${file}: ${message}`, diagnostic: diag("MTG001", "error", message, undefined, { file, line: 1, col: 1 }) };
    }
  }
  return {
    ok: false,
    message: `unknown spec '${nameOrPath}': not a built-in spec (${builtins.join(", ")}) nor a file`,
  };
}

function displayPath(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel.startsWith("..") && rel.split(/[/\\]/).filter((s) => s === "..").length > 2 ? file : rel || file;
}
