// Part of `npm run build`, after the precompiled specs: bundles the generate path of dist/generator (the
// fast path, the CLI's generate command, the emitters, the precompiled templates and the Handlebars
// runtime) into one script,
// dist/generate.cjs, that generator/launch.ts runs with V8's code cache of a whole run. Every other module
// a generate may need stays a module, imported when needed: the bundle's import() calls become
// __mtgImport("dist/generator/<module>.js") (or the package's name), import.meta.url the URL of the module
// the code came from (__mtgUrl), and build-id.js the launcher's own instance of it (__mtgHost), so that what
// the launcher checked is what the fast path uses. The build fails if any of these rewrites did not apply.
import { createHash } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "dist", "generate.cjs");
/** The dynamic imports a generate of a built-in spec makes, bundled; any other is imported from dist/ when needed. */
const BUNDLED = new Set(["dist/generator/cli/generate.js", "dist/generator/precompiled.js", "dist/generator/output.js", "dist/generator/init.js"]);
const posix = (p) => p.split(sep).join("/");
/** The specifier prefix of an import() left to the launcher. */
const MARK = "mtg-launcher:";

const result = await build({
  stdin: {
    contents: 'export * as fast from "./dist/generator/fastpath.js";\nexport * as cli from "./dist/generator/cli/index.js";\n',
    resolveDir: root,
    sourcefile: "generate-entry.mjs",
  },
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node22",
  write: false,
  metafile: true,
  logLevel: "warning",
  // Paths in the bundle's comments are relative to the package, wherever it was built.
  absWorkingDir: root,
  plugins: [
    {
      name: "generate-path",
      setup(b) {
        b.onResolve({ filter: /\/build-id\.js$/ }, (a) => (a.importer.includes(`${sep}dist${sep}generator${sep}`) ? { path: "build-id", namespace: "host" } : undefined));
        b.onLoad({ filter: /.*/, namespace: "host" }, () => ({ contents: "module.exports = __mtgHost.buildId;", loader: "js" }));
        // Each import() esbuild finds (the parser's, not a text search) that is not on the bundled path stays
        // an import(), of a marked specifier that the text below turns into __mtgImport.
        b.onResolve({ filter: /.*/ }, (a) => {
          if (a.kind !== "dynamic-import") return undefined;
          if (!a.path.startsWith(".")) return { path: `${MARK}${a.path}`, external: true };
          const target = posix(relative(root, join(a.resolveDir, a.path)));
          return BUNDLED.has(target) ? undefined : { path: `${MARK}${target}`, external: true };
        });
        b.onLoad({ filter: /[/\\]dist[/\\]generator[/\\].*\.js$/ }, (a) => {
          const path = posix(relative(root, a.path));
          let text = readFileSync(a.path, "utf8");
          if (text.includes(MARK)) throw new Error(`bundle-generate: ${path} has the text ${MARK}`);
          text = text.replaceAll("import.meta.url", `__mtgUrl(${JSON.stringify(path)})`);
          if (path === "dist/generator/emit/index.js") {
            // The precompiled templates and the Handlebars runtime go into the bundle (their functions are
            // most of what a run compiles); the Handlebars compiler (for a template edited since the build)
            // stays the package's, required from dist/generator/emit.
            const before = text;
            text = text.replace("const require = createRequire(", "const requireHere = createRequire(").replace('require("handlebars")', 'requireHere("handlebars")');
            const required = [...text.matchAll(/[^.\w]require\("([^"]*)"\)/g)].map((m) => m[1]).sort();
            if (text === before || JSON.stringify(required) !== JSON.stringify(["./templates.precompiled.cjs", "handlebars/dist/handlebars.runtime.js"])) {
              throw new Error("bundle-generate: dist/generator/emit/index.js no longer requires its templates as this script expects");
            }
          }
          return { contents: text, loader: "js" };
        });
      },
    },
  ],
});
// A warning (an import.meta left, which a CommonJS bundle cannot have) fails the build.
if (result.warnings.length > 0) throw new Error("bundle-generate: esbuild warned (above)");
const code = result.outputFiles[0].text.replaceAll(`import("${MARK}`, '__mtgImport("');
if (code.includes(MARK)) throw new Error("bundle-generate: an import() of the bundle was left as it was");
// The packages' files in the bundle, by the specifier the launcher resolves them with and their sha256: it
// takes the bundle only while the installed files are these (generator/launch.ts).
const packages = Object.fromEntries(
  Object.keys(result.metafile.inputs)
    .filter((p) => p.includes("node_modules/"))
    .sort()
    .map((p) => [p.slice(p.lastIndexOf("node_modules/") + "node_modules/".length), createHash("sha256").update(readFileSync(join(root, p))).digest("hex")]),
);
// The launcher (generator/launch.ts with the build id and the cache folder it reads) as one CommonJS script,
// dist/launch.cjs, that bin/mcp-task-gen.js requires: a generate of a built-in spec then starts without
// Node's ES module loader. import.meta.url becomes the URL the module had in dist/generator.
const launcher = await build({
  entryPoints: [join(root, "dist", "generator", "launch.js")],
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node22",
  write: false,
  logLevel: "warning",
  absWorkingDir: root,
  plugins: [
    {
      name: "launcher",
      setup(b) {
        b.onLoad({ filter: /[/\\]dist[/\\]generator[/\\].*\.js$/ }, (a) => ({
          contents: readFileSync(a.path, "utf8").replaceAll(
            "import.meta.url",
            `require("node:url").pathToFileURL(require("node:path").join(__dirname, "..", ${JSON.stringify(posix(relative(root, a.path)))})).href`,
          ),
          loader: "js",
        }));
        b.onResolve({ filter: /.*/ }, (a) => {
          if (a.kind === "entry-point" || a.path.startsWith("node:")) return undefined;
          if (!a.path.startsWith(".")) throw new Error(`bundle-generate: the launcher imports ${a.path}, a package: it must start with Node's modules only`);
          return undefined;
        });
      },
    },
  ],
});
if (launcher.warnings.length > 0) throw new Error("bundle-generate: esbuild warned about the launcher (above)");
const launcherCode = launcher.outputFiles[0].text;
if (launcherCode.includes("import.meta")) throw new Error("bundle-generate: the launcher kept an import.meta");
for (const [file, text] of [
  [`${out.replace(/\.cjs$/, "")}.packages.json`, `${JSON.stringify(packages, null, 1)}\n`],
  [out, code],
  [join(root, "dist", "launch.cjs"), launcherCode],
]) {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}
