import { defineConfig } from "vitest/config";

export default defineConfig({
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
