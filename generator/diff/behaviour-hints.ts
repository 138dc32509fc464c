/** The migration hints of behaviour changes: what behaviour values mean and what to do when a behaviour path changes. */
import type { RuleId } from "./rules.js";
import { brief, cap } from "./text.js";

/** What some behaviour values mean, for hints ("<path>=<value>" → words). */
const MEANINGS: Readonly<Record<string, string>> = {
  "creation.via=meta": "a `_meta` key on the request asks for a task",
  "creation.via=param": "a `params` field of the request asks for a task",
  "creation.via=client-capability": "the client opts in per request with a client capability, and the receiver decides",
  "creation.decidedBy=requestor": "the requestor decides that a request becomes a task",
  "creation.decidedBy=receiver": "the receiver alone decides whether a request becomes a task",
  "creation.taskId.assignedBy=requestor": "the requestor makes up the task id",
  "creation.taskId.assignedBy=receiver": "the receiver assigns the task id",
  "creation.ack.mode=notification": "a notification acknowledges the task and the request is answered later with its real result",
  "creation.ack.mode=result": "the request is answered at once with `{ task }`",
  "creation.ack.mode=flat-result": "the request is answered at once with the task's own fields",
  "results.mode=error-until-completed": "the result method answers an error until the task has completed",
  "results.mode=block-until-terminal": "the result method waits until the task is terminal, then returns the original request's outcome",
  "results.mode=inline": "`tasks/get` carries the result (or error) of a finished task; there is no result method",
  "results.replaysErrors=true": "a request that failed with a JSON-RPC error yields that error from the result channel",
  "results.replaysErrors=false": "a failed request's JSON-RPC error is not replayed",
  "outcomes.failureShape=message": "a failure is described by a string",
  "outcomes.failureShape=error-object": "a failure is described by a JSON-RPC error object",
  "cancellation.via=cancelled-notification": "tasks are cancelled with `notifications/cancelled`",
  "cancellation.via=method": "tasks are cancelled with a request",
  "cancellation.reply=none": "cancelling answers nothing",
  "cancellation.reply=task": "cancelling answers the (cancelled) task",
  "cancellation.reply=ack": "cancelling answers an empty acknowledgement",
  "cancellation.timing=before-reply": "the task is cancelled by the time the answer leaves",
  "cancellation.timing=eventual": "the task is cancelled eventually, and may still end otherwise",
  "cancellation.terminal=ignore": "cancelling a finished task is ignored",
  "cancellation.terminal=error": "cancelling a finished task is an error",
  "cancellation.terminal=ack": "cancelling a finished task is acknowledged like any other",
  "input.via=side-request": "the receiver sends input requests (elicitation, sampling) directly, tagged with the task",
  "input.via=result-stream": "input requests reach the requestor on the blocking result call",
  "input.via=inline-poll": "`tasks/get` carries pending input requests and the requestor answers them with an update request",
  "statusNotifications.delivery=push": "status notifications are pushed on the session",
  "statusNotifications.delivery=subscription": "status notifications are sent only on a subscription stream",
  "retention.countedFrom=creation": "retention is counted from the task's creation",
  "retention.countedFrom=terminal": "retention is counted from the moment the task ends",
  "sessionBinding=session": "tasks are bound to the transport session",
  "sessionBinding=auth": "tasks are bound to the auth context",
  "sessionBinding=session-and-auth": "tasks are bound to the session and the auth context",
  "sessionBinding=none": "tasks are bound to nothing",
  "creation.progressTokenLifetime=request": "the request's progressToken is valid until the original request is answered",
  "creation.progressTokenLifetime=task": "the request's progressToken stays valid for the task's whole life",
  "creation.taskId.unguessable=true": "task ids must be unguessable (128-bit random): receivers must generate them so",
  "creation.taskId.unguessable=false": "task ids need not be unguessable",
  "creation.durableBeforeAck=true": "receivers must store a task where tasks/get finds it before acknowledging it",
  "retention.reachableWholeTime=true": "a task must stay reachable through its whole retention time",
  "retention.reachableWholeTime=false": "receivers may delete a task before its retention time is up",
  "retention.nullMeansUnlimited=true": "null asks for (and grants) unlimited retention",
  "relatedTask.requests=true": "requests the receiver sends for a task carry the related-task key",
  "relatedTask.requests=false": "requests the receiver sends for a task no longer carry the related-task key",
  "relatedTask.notifications=true": "notifications a task's work sends carry the related-task key",
  "relatedTask.notifications=false": "notifications a task's work sends no longer carry the related-task key",
  "relatedTask.taskMethodRequests=true": "requestors put the related-task key on tasks/* requests",
  "relatedTask.taskMethodRequests=false": "requestors no longer put the related-task key on tasks/* requests",
  "relatedTask.onInlineResult=true": "a result inlined into a status carries the related-task key",
  "relatedTask.onInlineResult=false": "a result inlined into a status does not carry the related-task key",
  "input.partial=true": "answers to input requests may arrive in several parts",
  "input.partial=false": "all answers to input requests arrive together",
};

/** What to do, per behaviour path (the part after "behaviour."). */
const ACTIONS: Readonly<Record<string, string>> = {
  "creation.via": "change how requestors ask for a task and how receivers recognise the ask",
  "creation.decidedBy": "requestors must accept whichever answer the receiver chooses (a task or a plain result)",
  "creation.taskId.assignedBy": "task ids come from the other side now; stop generating (or expecting) them",
  "creation.ack.mode": "change how the first answer to a task-augmented request is produced and read",
  "creation.requests.server": "only these requests may become tasks on servers",
  "creation.requests.client": "only these requests may become tasks on clients",
  "results.mode": "change how requestors obtain a task's result and how receivers deliver it",
  "results.method": "fetch results through the new method",
  "outcomes.toolError": "a tool result with isError: true now ends the task in this status",
  "outcomes.protocolError": "a request that ends in a JSON-RPC error now ends the task in this status",
  "outcomes.unexpected": "unexplained endings now use this status",
  "outcomes.failureField": "read and write failure details in this field",
  "outcomes.failureShape": "produce and parse failures in the new shape",
  "cancellation.via": "change how requestors cancel and how receivers observe cancellation",
  "cancellation.method": "cancel through the new method",
  "cancellation.reply": "produce and read the new answer to a cancel request",
  "cancellation.timing": "requestors must not assume more than that about when the task stops",
  "cancellation.terminal": "handle cancelling a finished task the new way",
  "input.via": "change how input requests reach the requestor and how answers come back",
  "polling.field": "read the suggested poll interval from the new field",
  "retention.field": "read and write the retention from the new field",
  "taskType": "`tasks/get` and status notifications now carry this task type",
  "relatedTask": "the related-task meta key is used differently",
  "capabilities.server": "servers advertise task support differently; clients must look for it there",
  "capabilities.client": "clients declare task support differently; servers must look for it there",
  "http": "over Streamable HTTP, send and check the header on the listed methods",
  "resultType": "results carry a discriminating field: produce it and branch on it",
  "listing:removed": "requestors can no longer list tasks: keep the ids you are given; receivers may drop listing",
  "listing:added": "receivers must implement task listing; requestors may list their tasks",
  "creation.retentionField": "requestors ask for a retention time in this field of the task request",
  "creation.retentionField:removed": "requestors can no longer ask for a retention time; the receiver picks it",
  "creation.requiredTaskError": "a request that only runs as a task, sent without the requestor's opt-in, is answered with this error",
  "creation.toolSwitch:added": "tools declare task support (forbidden/optional/required): receivers must enforce it, requestors must check it before asking for a task",
  "creation.toolSwitch:removed": "tools no longer declare task support: stop reading and enforcing it",
  "creation.toolSwitch": "the per-tool task switch changed: enforce and check it the new way",
  "creation.progressTokenLifetime:removed": "no rule for the progressToken's lifetime any more: do not rely on progress after the first answer",
  "outcomes.statusMessageField": "a human-readable status message may be carried in this field",
  "cancellation.deleteMethod:removed": "tasks can no longer be deleted: requestors stop deleting, receivers drop them when their retention ends",
  "cancellation.terminalError:removed": "cancelling a finished task is no longer an error",
  "cancellation.ignoreLateInput:removed": "the spec no longer says what happens to answers to input requests of a task cancelled meanwhile",
  "relatedTask:removed": "there is no related-task meta key any more: the task id is in every tasks/* message; stop sending and expecting the key",
  "relatedTask.results": "put the related-task key on exactly these results, and expect it there",
  "relatedTask.notOnResults": "do not put the related-task key on these results",
  "retention.reachableWholeTime": "change when receivers may delete a task",
  "statusNotifications.method": "status notifications use the new method",
  "unsupportedMethods:added": "receivers answer these former methods with this error (an unknown method gets it anyway)",
  "statusNotifications.payload": "status notifications carry the new payload",
  "sessionBinding": "receivers must scope tasks the new way",
};

export function behaviourHint(kind: "added" | "removed" | "changed", path: string, before: unknown, after: unknown, rule: RuleId, w: { P: string; C: string }): string {
  const rel = path.replace(/^behaviour\.?/, "");
  const meaning = (v: unknown) => (typeof v === "string" || typeof v === "boolean" ? MEANINGS[`${rel}=${String(v)}`] : undefined);
  const action = ACTIONS[`${rel}:${kind}`] ?? ACTIONS[rel];
  const now = meaning(after);
  if (rule === "behaviour.tuning") return `A default or limit (${brief(before)} → ${brief(after)}): adjust configuration if you relied on it.`;
  if (now) return `${cap(now)}${action ? `: ${action}` : ""}.`;
  if (action) return `${cap(action)}.`;
  if (rule === "behaviour.optional") {
    return kind === "removed" ? `Optional feature gone: ${w.P} stop providing it; ${w.C} keep polling as before.` : `Optional: ${w.P} may provide it; ${w.C} may use it but must not rely on it.`;
  }
  if (kind === "added") return `${cap(w.P)} must provide it; ${w.C} may use it.`;
  if (kind === "removed") return `${cap(w.C)} must stop relying on it; ${w.P} may drop it.`;
  return `Move to ${brief(after, 60)} (was ${brief(before, 60)}).`;
}
