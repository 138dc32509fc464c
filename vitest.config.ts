import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    // Generated code imports the runtime package; in this repository that is the runtime's sources, the
    // same modules the tests import, so that one copy of each class is loaded (tsconfig.json's `paths`
    // says the same to tsc and tsx). Output generated outside the checkout imports the package's build.
    alias: [{ find: /^@mcp-task-gen\/runtime\/(.*)$/, replacement: `${fileURLToPath(new URL("./runtime/", import.meta.url))}$1.ts` }],
  },
  test: {
    include: ["test/**/*.test.ts"],
    // Builds dist/ (which the CLI runs) when generator/ is newer.
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/fast-check-seed.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Two cores: e2e tests start child processes, so keep the fan-out small.
    maxWorkers: 2,
  },
});
