/** Rule `capabilities`: The server declares the spec's capability; a method the capability gates is refused where the server does not declare it; a request gated on augments is served plainly where undeclared; a method the client capability gates is refused without it. */
import { defineRule } from "../rule.js";

export const capabilities = defineRule({
  name: "capabilities",
  description: "The server declares the spec's capability; a method the capability gates is refused where the server does not declare it; a request gated on augments is served plainly where undeclared; a method the client capability gates is refused without it.",
  statements: [],
  reads: ["behaviour.capabilities"],
});
