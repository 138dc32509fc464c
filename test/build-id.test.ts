/**
 * The build id (generator/build-id.ts, written by scripts/build-id.mjs as the last step of `npm run build`):
 * the digest the fast path keys compiles by while the generator's files are as the build left them. It must
 * be the digest those files hash to, so that a key is the same with the build id and without it.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers/cli.js";

describe("the build id", () => {
  it("is the digest the generator's files hash to, so the fast path's keys are the same with it and without", async () => {
    const here = join(ROOT, "dist", "generator");
    const { trustedBuild } = (await import(pathToFileURL(join(here, "build-id.js")).href)) as typeof import("../generator/build-id.js");
    const { generatorFiles } = (await import(pathToFileURL(join(here, "file-hashes.js")).href)) as typeof import("../generator/file-hashes.js");
    const id = trustedBuild(true);
    expect(id, "the checkout's build is as `npm run build` left it").toBeDefined();
    expect(id!.files).toBe(generatorFiles(here, ROOT));
  });
});

