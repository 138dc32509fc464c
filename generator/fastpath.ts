/**
 * The no-change fast path of `mcp-task-gen generate --spec S --out D`.
 *
 * A regenerate that changes nothing still costs a full compile: YAML, checks,
 * Handlebars and above all prettier, in a cold process (about 25 times
 * `node -e 0`). Yet its outcome is known in advance when nothing it depends on
 * changed: the generator (its compiled code, templates and dependencies), the
 * spec text, the arguments and the working directory. So after a full run that
 * found D already up to date, bin/mcp-task-gen.js records a stamp: a key over
 * those inputs, the sha256 of D's manifest, and what the run printed. The next
 * identical command whose key matches, and whose D still holds exactly the
 * files its manifest lists (every one re-hashed), prints the recorded output
 * and exits 0 without loading the compiler. Anything else (another flag, a
 * changed or missing file, warnings, a stale stamp, any error here) takes the
 * normal path, so the fast path never decides anything the compiler would not.
 * It relies on the plain form writing nowhere but D: a flag that writes
 * elsewhere (--handlers, a config file's targets) is not the plain form.
 *
 * Stamps live in $MCP_TASK_GEN_CACHE (a directory), else in the project's
 * nearest node_modules/.cache/mcp-task-gen (no node_modules: no stamps);
 * MCP_TASK_GEN_CACHE=off disables them. Nothing is ever written to D, nor
 * outside the project.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { resolveSpec } from "./specs.js";

const MANIFEST = "mcp-task-gen.manifest.json";
const STAMP_VERSION = 1;
const MAX_STAMPS = 256;

const sha256 = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");

export interface Snapshot {
  key: string;
  stampFile: string;
  /** The out dir's state before the run, if complete (a manifest whose files are all present and intact). */
  before: string | undefined;
  out: string;
}

interface Stamp {
  v: number;
  key: string;
  state: string;
  stdout: string;
}

function cacheDir(cwd: string): string | undefined {
  const env = process.env.MCP_TASK_GEN_CACHE;
  if (env !== undefined && /^(off|0|false|no)$/i.test(env)) return undefined;
  if (env) return resolve(env);
  // Project-local, where build tools keep their caches: the nearest node_modules/.cache.
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "node_modules"))) return join(dir, "node_modules", ".cache", "mcp-task-gen");
    if (dirname(dir) === dir) return undefined;
  }
}

/** Only the plain form qualifies: `generate` with --spec and --out (and optionally --quiet), each once. */
function parse(argv: readonly string[]): { spec: string; out: string } | undefined {
  if (argv[0] !== "generate") return undefined;
  const seen = new Map<string, string>();
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    let name: string;
    let value: string | undefined;
    const eq = a.indexOf("=");
    if (a === "--quiet") (name = "quiet"), (value = "");
    else if (a === "--spec" || a === "--out") {
      name = a.slice(2);
      value = argv[++i];
    } else if (eq > 0 && (a.startsWith("--spec=") || a.startsWith("--out="))) {
      name = a.slice(2, eq);
      value = a.slice(eq + 1);
    } else return undefined;
    if (value === undefined || value.startsWith("-") || (name !== "quiet" && value === "") || seen.has(name)) return undefined;
    seen.set(name, value);
  }
  const spec = seen.get("spec");
  const out = seen.get("out");
  return spec !== undefined && out !== undefined ? { spec, out } : undefined;
}

function listFiles(dir: string, into: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) listFiles(full, into);
    else into.push(full);
  }
  return into;
}

let fingerprintMemo: string | undefined;

/** Everything the output depends on besides the spec: the compiled generator, its templates, its dependencies. */
function fingerprint(): string {
  if (fingerprintMemo) return fingerprintMemo;
  const here = dirname(fileURLToPath(import.meta.url)); // dist/generator
  const root = resolve(here, "..", "..");
  const h = createHash("sha256");
  const pkgText = readFileSync(join(root, "package.json"), "utf8");
  h.update(pkgText);
  for (const file of [...listFiles(here), ...listFiles(join(root, "templates"))]) {
    h.update(`\0${file}\0`).update(readFileSync(file));
  }
  const deps = Object.keys((JSON.parse(pkgText) as { dependencies?: Record<string, string> }).dependencies ?? {}).sort();
  for (const dep of deps) {
    let found = false;
    for (let dir = root; ; dir = dirname(dir)) {
      try {
        h.update(`\0${dep}\0`).update(readFileSync(join(dir, "node_modules", dep, "package.json")));
        found = true;
        break;
      } catch {
        if (dirname(dir) === dir) break;
      }
    }
    if (!found) throw new Error(`dependency ${dep} not found`);
  }
  return (fingerprintMemo = h.digest("hex"));
}

/** The out dir's manifest and the files it lists, if all are present and intact; undefined otherwise. */
function state(out: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(join(out, MANIFEST), "utf8");
  } catch {
    return undefined;
  }
  const manifest = JSON.parse(text) as { files?: Record<string, string> };
  if (!manifest || typeof manifest.files !== "object" || manifest.files === null) return undefined;
  for (const [path, hash] of Object.entries(manifest.files)) {
    if (path.includes("..") || sha256(readFileSync(join(out, path), "utf8")) !== hash) return undefined;
  }
  return sha256(text);
}

/** Before a run: undefined when the command does not qualify (then nothing is recorded either). */
export function snapshot(argv: readonly string[], cwd: string): Snapshot | undefined {
  try {
    const args = parse(argv);
    const dir = cacheDir(cwd);
    if (!args || !dir) return undefined;
    const r = resolveSpec(args.spec, cwd);
    if (!r.ok) return undefined;
    const out = resolve(cwd, args.out);
    const key = sha256(JSON.stringify({ v: STAMP_VERSION, generator: fingerprint(), argv, cwd, file: r.source.file, spec: r.source.text }));
    let before: string | undefined;
    try {
      before = state(out);
    } catch {
      before = undefined;
    }
    return { key, stampFile: join(dir, "stamps", `${sha256(out)}.json`), before, out };
  } catch {
    return undefined;
  }
}

/** The recorded output when the command is known to change nothing; undefined otherwise. */
export function replay(snap: Snapshot | undefined): string | undefined {
  if (!snap || snap.before === undefined) return undefined;
  try {
    const stamp = JSON.parse(readFileSync(snap.stampFile, "utf8")) as Stamp;
    return stamp.v === STAMP_VERSION && stamp.key === snap.key && stamp.state === snap.before && typeof stamp.stdout === "string"
      ? stamp.stdout
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * After a full run: record a stamp if the run succeeded quietly (nothing on
 * stderr) and the out dir was complete and identical before and after it,
 * i.e. the run found it up to date and wrote nothing.
 */
export function record(snap: Snapshot | undefined, run: { code: number; stdout: string; stderr: string }): void {
  if (!snap || snap.before === undefined || run.code !== 0 || run.stderr !== "") return;
  try {
    if (state(snap.out) !== snap.before) return;
    const stamp: Stamp = { v: STAMP_VERSION, key: snap.key, state: snap.before, stdout: run.stdout };
    const dir = dirname(snap.stampFile);
    mkdirSync(dir, { recursive: true });
    const tmp = `${snap.stampFile}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    writeFileSync(tmp, JSON.stringify(stamp));
    renameSync(tmp, snap.stampFile);
    prune(dir);
  } catch {
    // A stamp is only an optimization.
  }
}

/** Keeps the newest MAX_STAMPS stamps (one per output directory). */
function prune(dir: string): void {
  const names = readdirSync(dir).filter((n) => n.endsWith(".json"));
  if (names.length <= MAX_STAMPS) return;
  const aged = names.map((n) => ({ n, t: statSync(join(dir, n)).mtimeMs })).sort((a, b) => b.t - a.t);
  for (const { n } of aged.slice(MAX_STAMPS)) rmSync(join(dir, n), { force: true });
}
