// The last step of `npm run build`: writes dist/build-id.json (generator/build-id.ts), the digest of the
// generator's files as the fast path computes it (file-hashes.ts's generatorFiles), each file's size and
// mtime, each folder's names, and the sha256 of the generate path's bundle (dist/generate.cjs) with the packages' files in it. A file changed within the last
// second is waited for, so that no later edit can have a recorded mtime; a file that changes while this
// runs fails the build.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const here = join(root, "dist", "generator");
const { listFiles } = await import(join(here, "fsout.js"));
const { generatorFiles } = await import(join(here, "file-hashes.js"));
const { buildIdFile } = await import(join(here, "build-id.js"));
const out = buildIdFile();
rmSync(out, { force: true });

const bundle = existsSync(join(root, "dist", "generate.cjs")) ? "dist/generate.cjs" : undefined;
const paths = [
  ...[here, join(root, "templates")].flatMap((dir) => listFiles(dir).filter((p) => !p.endsWith(".d.ts")).map((p) => relative(root, join(dir, p)).split(sep).join("/"))),
  ...(bundle ? [bundle] : []),
].sort();
/** Every folder of dist/generator and templates/ (relative to the root) with the names in it, sorted. */
const folders = (dir) => [
  [relative(root, dir).split(sep).join("/"), readdirSync(dir).sort()],
  ...readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).flatMap((e) => folders(join(dir, e.name))),
];
const listings = () => Object.fromEntries([here, join(root, "templates")].flatMap(folders).sort(([a], [b]) => (a < b ? -1 : 1)));
const stats = () => Object.fromEntries(paths.map((p) => [p, ((s) => [s.size, s.mtimeMs])(statSync(join(root, p)))]));

const newest = Math.max(...Object.values(stats()).map(([, mtime]) => mtime));
const wait = newest + 1100 - Date.now();
if (wait > 0) await new Promise((r) => setTimeout(r, wait));
const before = stats();
const dirs = listings();
const files = generatorFiles(here, root);
const id = {
  files,
  ...(bundle
    ? {
        bundle: {
          path: bundle,
          sha256: createHash("sha256").update(readFileSync(join(root, bundle))).digest("hex"),
          packages: JSON.parse(readFileSync(join(root, "dist", "generate.packages.json"), "utf8")),
        },
      }
    : {}),
  stats: before,
  dirs,
};
if (JSON.stringify(stats()) !== JSON.stringify(before) || JSON.stringify(listings()) !== JSON.stringify(dirs)) {
  process.stderr.write("build-id: a file of dist/generator, templates/ or the bundle changed while the build id was taken; build again\n");
  process.exit(1);
}
writeFileSync(`${out}.tmp`, `${JSON.stringify(id, null, 1)}\n`);
renameSync(`${out}.tmp`, out);
