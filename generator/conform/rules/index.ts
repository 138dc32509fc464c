/**
 * The catalogue of conform's rules, one module each: a rule's name (as reports, `--ignore` and the statements
 * file give it), what must hold, the protocol statements it checks and the parts of the spec it reads.
 */
import { types } from "./types.js";
import { states } from "./states.js";
import { transitions } from "./transitions.js";
import { terminal } from "./terminal.js";
import { identity } from "./identity.js";
import { outcomes } from "./outcomes.js";
import { progress } from "./progress.js";
import { results } from "./results.js";
import { cancellation } from "./cancellation.js";
import { deletion } from "./delete.js";
import { listing } from "./listing.js";
import { unknownId } from "./unknown-id.js";
import { errorData } from "./error-data.js";
import { headerMismatch } from "./header-mismatch.js";
import { optIn } from "./opt-in.js";
import { retention } from "./retention.js";
import { statusPush } from "./status-push.js";
import { subscriptions } from "./subscriptions.js";
import { errorMessage } from "./error-message.js";
import { params } from "./params.js";
import { toolSwitch } from "./tool-switch.js";
import { envelope } from "./envelope.js";
import { relatedTask } from "./related-task.js";
import { notifications } from "./notifications.js";
import { creation } from "./creation.js";
import { get } from "./get.js";
import { input } from "./input.js";
import { custom } from "./custom.js";
import { expiry } from "./expiry.js";
import { capabilities } from "./capabilities.js";
import { handshake } from "./handshake.js";
import { transport } from "./transport.js";
import { httpAccept } from "./http-accept.js";
import { httpHeaderLimit } from "./http-header-limit.js";
import { timestamps } from "./timestamps.js";
import { isolation } from "./isolation.js";
import { progressToken } from "./progress-token.js";
import { duplicateId } from "./duplicate-id.js";
import { resultType } from "./result-type.js";
import { unsupported } from "./unsupported.js";
import { plainRequest } from "./plain-request.js";
import { httpPollJson, httpResponse } from "./http-response.js";
import { httpSession } from "./http-session.js";
import { teardown } from "./teardown.js";
import { authorization } from "./authorization.js";
import type { Rule } from "../rule.js";

/** Every rule, by the name the code refers to it with. */
export const rules = {
  types,
  states,
  transitions,
  terminal,
  identity,
  outcomes,
  progress,
  results,
  cancellation,
  deletion,
  listing,
  unknownId,
  errorMessage,
  errorData,
  params,
  toolSwitch,
  envelope,
  relatedTask,
  notifications,
  creation,
  get,
  input,
  custom,
  expiry,
  capabilities,
  handshake,
  transport,
  httpAccept,
  httpHeaderLimit,
  timestamps,
  isolation,
  progressToken,
  duplicateId,
  resultType,
  unsupported,
  plainRequest,
  httpResponse,
  httpPollJson,
  httpSession,
  headerMismatch,
  optIn,
  subscriptions,
  retention,
  statusPush,
  teardown,
  authorization,
} as const satisfies Record<string, Rule>;

/** Every rule, in the order reports list them. */
export const RULE_CATALOGUE: readonly Rule[] = Object.values(rules);
