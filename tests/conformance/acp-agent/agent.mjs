// An ACP agent built with the official SDK (`@agentclientprotocol/sdk`), so
// oneworks' client is checked against an implementation nobody here wrote.
// The SDK validates every request it receives against the ACP schema.
//
// The prompt text picks the behaviour:
//   "plain"      → one message chunk, then `end_turn`
//   "permission" → asks `session/request_permission`, reports the outcome
//   "cancel"     → one chunk, then waits for `session/cancel` → `cancelled`
import { Readable, Writable } from "node:stream";
import { agent, methods, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

const waiting = new Map(); // sessionId → resolve(), for `cancel`
let sessions = 0;

function text(client, sessionId, value) {
  return client.notify(methods.client.session.update, {
    sessionId,
    update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: value } },
  });
}

const app = agent({ name: "oneworks-conformance" })
  .onRequest(methods.agent.initialize, () => ({
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: { loadSession: false },
    authMethods: [],
  }))
  .onRequest(methods.agent.session.new, () => ({ sessionId: `conformance-${++sessions}` }))
  .onNotification(methods.agent.session.cancel, ({ params }) => {
    waiting.get(params.sessionId)?.();
  })
  .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
    const sessionId = params.sessionId;
    const said = params.prompt
      .filter((block) => block.type === "text")
      .map((block) => block.text)
      .join(" ");
    if (said.includes("permission")) {
      const answer = await client.request(methods.client.session.requestPermission, {
        sessionId,
        toolCall: { toolCallId: "call-1", title: "Edit notes.md", kind: "edit", status: "pending" },
        options: [
          { optionId: "allow-once", name: "Allow", kind: "allow_once" },
          { optionId: "allow-always", name: "Always", kind: "allow_always" },
          { optionId: "reject-once", name: "Reject", kind: "reject_once" },
        ],
      });
      const outcome = answer.outcome.outcome === "selected" ? answer.outcome.optionId : "cancelled";
      await text(client, sessionId, `outcome: ${outcome}`);
      return { stopReason: "end_turn" };
    }
    if (said.includes("cancel")) {
      const cancelled = new Promise((resolve) => waiting.set(sessionId, resolve));
      await text(client, sessionId, "waiting for cancel");
      await cancelled;
      waiting.delete(sessionId);
      return { stopReason: "cancelled" };
    }
    await text(client, sessionId, "conformance hello");
    return { stopReason: "end_turn" };
  });

const connection = app.connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
await connection.closed;
