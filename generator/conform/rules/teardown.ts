/** Rule `teardown`: a subscription stream the server tears down when it stops is ended with notifications/cancelled naming it. */
import { defineRule } from "../rule.js";

export const teardown = defineRule({
  name: "teardown",
  description:
    "Where status notifications come on a subscription (statusNotifications.delivery: subscription), over stdio, once per invocation at its end: " +
    "with a subscription open for one of the requestor's running tasks, the tester shuts the server down as a stdio client does (it closes the " +
    "server's stdin, then, where the process has not ended within 10 s, sends SIGTERM and waits 10 s more); the server sends notifications/cancelled naming the " +
    "subscribe request before its process ends. Over Streamable HTTP the tester cannot make the server stop: not exercised.",
  statements: ["ext-tasks-2026-07-28/core.cancelled-on-teardown"],
  reads: ["behaviour.statusNotifications"],
});
