/** init: a ready MCP server project (the scaffold is generator/init.ts, its disk side generator/project.ts). */
import { initCommand, ProjectUsageError } from "../project.js";
import { UsageError, type Io } from "./shared.js";

export async function initCmd(io: Io, o: Parameters<typeof initCommand>[1]): Promise<number> {
  try {
    return await initCommand(io, o);
  } catch (e) {
    throw e instanceof ProjectUsageError ? new UsageError(e.message) : e;
  }
}
