/**
 * The seed of every fast-check property: FC_SEED when set (.ci/run sets one, so that a CI verdict can
 * be replayed), otherwise a new one per run, which fast-check prints with any counterexample
 * (`FC_SEED=<seed> npx vitest run <file>` replays it).
 */
import fc from "fast-check";

const seed = process.env.FC_SEED;
if (seed !== undefined && seed !== "") {
  if (!/^-?\d+$/.test(seed)) throw new Error(`FC_SEED must be an integer, got ${JSON.stringify(seed)}`);
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: Number(seed) });
}
