/** Rule `http-accept`: Streamable HTTP: a POST whose Accept lacks text/event-stream gets 406. */
import { defineRule } from "../rule.js";

export const httpAccept = defineRule({
  name: "http-accept",
  description: "Streamable HTTP: a POST whose Accept lacks text/event-stream gets 406.",
  statements: [],
  reads: [],
});
