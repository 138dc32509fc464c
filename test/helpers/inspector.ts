/**
 * The MCP Inspector's CLI, as the scaffold's README runs it: the Inspector needs Node 22.19 or later, so it
 * and a Node 22 live in the conformance folder (installed by `.ci/run`, or here when missing).
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./cli.js";

const FOLDER = join(ROOT, "conformance");

/** [node 22, the Inspector's entry point]: run `node22 entry --cli <target> --method ...`. */
export function inspectorCli(): [string, string] {
  const node = join(FOLDER, "node_modules", ".bin", process.platform === "win32" ? "node.cmd" : "node");
  const entry = join(FOLDER, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js");
  if (!existsSync(node) || !existsSync(entry)) {
    execFileSync(process.platform === "win32" ? "npm.cmd" : "npm", ["ci", "--prefix", FOLDER, "--no-audit", "--no-fund", "--loglevel=error"], { stdio: "inherit" });
  }
  return [node, entry];
}
