#!/usr/bin/env node
// What `npm install <package>` brings into an empty project: bytes (apparent file sizes) and packages,
// for this package's tarball (npm pack) and for the code generators it is compared with.
//
//   node scripts/install-size.mjs [package ...]     (default: this tarball, openapi-typescript, orval)
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { footprint } from "./footprint.mjs";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const work = mkdtempSync(join(tmpdir(), "mtg-install-size-"));


try {
  let wanted = process.argv.slice(2);
  if (wanted.length === 0) {
    // The compiler and the runtime package it depends on, installed together (no registry has them yet).
    const packed = JSON.parse(execFileSync(npm, ["pack", ".", "./runtime", "--ignore-scripts", "--json", "--pack-destination", work], { cwd: root, encoding: "utf8" }));
    wanted = [packed.map((p) => join(work, p.filename)).reverse().join(" "), "openapi-typescript", "orval"];
  }
  console.log("| package | version | installed | packages |\n| --- | --- | --- | ---: |");
  for (const [i, spec] of wanted.entries()) {
    const dir = join(work, `p${i}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "empty", version: "1.0.0", private: true }));
    execFileSync(npm, ["install", "--no-audit", "--no-fund", "--no-package-lock", "--ignore-scripts", "--loglevel=error", ...spec.split(" ")], { cwd: dir, stdio: "ignore" });
    const name = spec.endsWith(".tgz") ? "mcp-task-gen" : spec.replace(/(.)@.*$/, "$1");
    const version = JSON.parse(readFileSync(join(dir, "node_modules", name, "package.json"), "utf8")).version;
    const { bytes, packages } = footprint(join(dir, "node_modules"));
    console.log(`| ${name} | ${version} | ${(bytes / 1e6).toFixed(1)} MB | ${packages} |`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
