#!/usr/bin/env node
// A test double of Gemini CLI 0.61.0 for oneworks' tests (no dependencies).
//
// - `gemini [-i PROMPT]`: a TUI that draws the approval box exactly as the
//   real one does (see tests/it/fixtures/gemini-pane, captured from the real
//   agent), answers Up/Down (wrapping), Enter, a digit (selects at once) and
//   Esc (= No), sets the window title (`✋  Action Required (<folder>)` while
//   a confirmation is pending, `◇  Ready (<folder>)` otherwise) and runs the
//   approved shell command with `sh -c` in its folder.
// - `gemini --acp` (or `--experimental-acp`): a minimal ACP agent over
//   stdio; a turn with a shell call sends one `session/request_permission`
//   with the real options (`proceed_always`, `proceed_once`, `cancel`).
// - `gemini --version`: the bare version.
//
// Model answers come from `--fake-responses[-non-strict] FILE`, one JSON
// object a line (`{"method":"generateContentStream","response":[…]}`), as
// the real agent reads them; other methods in the file are skipped. The
// world is read like the real one: `$GEMINI_CLI_HOME/.gemini/settings.json`
// (else `$HOME/.gemini`) for `security.auth.selectedType` and
// `security.folderTrust.enabled`, and `trustedFolders.json` beside it.

import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { createInterface } from "node:readline";

const VERSION = "0.61.0";

function usage(message) {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const args = { acp: false, model: "gemini-2.5-flash", prompt: null, responses: null };
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index];
    const value = () => {
      index += 1;
      if (index >= argv.length) usage(`Not enough arguments following: ${arg}`);
      return argv[index];
    };
    switch (arg) {
      case "--version":
      case "-v":
        process.stdout.write(`${VERSION}\n`);
        process.exit(0);
        break;
      case "--acp":
      case "--experimental-acp":
        args.acp = true;
        break;
      case "-m":
      case "--model":
        args.model = value();
        break;
      case "-i":
      case "--prompt-interactive":
        args.prompt = value();
        break;
      case "--fake-responses":
      case "--fake-responses-non-strict":
        args.responses = value();
        break;
      default:
        usage(`Unknown argument: ${arg}`);
    }
  }
  return args;
}

/// The model's answers, one `generateContentStream` turn each: either a
/// shell call `{command}` or a text.
function readResponses(path) {
  if (!path) return [];
  const turns = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const entry = JSON.parse(line);
    if (entry.method !== "generateContentStream") continue;
    const parts = (entry.response ?? []).flatMap(
      (chunk) => chunk?.candidates?.[0]?.content?.parts ?? [],
    );
    const call = parts.find((part) => part.functionCall)?.functionCall;
    if (call && call.name === "run_shell_command") {
      turns.push({ command: String(call.args?.command ?? ""), description: call.args?.description });
    } else {
      turns.push({ text: parts.map((part) => part.text ?? "").join("") });
    }
  }
  return turns;
}

function geminiDir() {
  const home = process.env.GEMINI_CLI_HOME || process.env.HOME || "/";
  return join(home, ".gemini");
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return {};
  }
}

function settings() {
  return readJson(join(geminiDir(), "settings.json"));
}

function folderTrusted(cwd) {
  const trust = settings()?.security?.folderTrust?.enabled;
  if (trust !== true) return true;
  const folders = readJson(join(geminiDir(), "trustedFolders.json"));
  return folders[cwd] === "TRUST_FOLDER";
}

function runShell(command, cwd) {
  const result = spawnSync("sh", ["-c", command], { cwd, encoding: "utf8" });
  return `${result.stdout ?? ""}${result.stderr ?? ""}`.replace(/\n$/, "");
}

// ---------------------------------------------------------------- ACP

function acp(args) {
  const responses = readResponses(args.responses);
  const cwdOf = new Map();
  let nextId = 0;
  const waiting = new Map();
  let turn = null;
  const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  const reply = (id, result) => send({ id, result });
  const fail = (id, code, message) => send({ id, error: { code, message } });
  const update = (sessionId, body) => send({ method: "session/update", params: { sessionId, update: body } });
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      send({ id, method, params });
    });

  async function prompt(id, sessionId) {
    turn = { id, cancelled: false };
    const cwd = cwdOf.get(sessionId);
    let first = true;
    while (responses.length && (first || responses[0].text !== undefined)) {
      first = false;
      const answer = responses.shift();
      if (answer.text !== undefined) {
        update(sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: answer.text } });
        continue;
      }
      const toolCallId = `run_shell_command__run_shell_command_${Date.now()}_0`;
      const outcome = await request("session/request_permission", {
        sessionId,
        options: [
          { optionId: "proceed_always", name: "Allow for this session", kind: "allow_always" },
          { optionId: "proceed_once", name: "Allow", kind: "allow_once" },
          { optionId: "cancel", name: "Reject", kind: "reject_once" },
        ],
        toolCall: {
          toolCallId,
          status: "pending",
          title: answer.command,
          content: [
            {
              type: "content",
              content: {
                type: "text",
                text: `[current working directory ${cwd}]${answer.description ? ` (${answer.description})` : ""}`,
              },
            },
          ],
          locations: [],
          kind: "execute",
        },
      });
      if (turn.cancelled) break;
      const chosen = outcome?.outcome?.optionId;
      if (outcome?.outcome?.outcome === "selected" && (chosen === "proceed_once" || chosen === "proceed_always")) {
        runShell(answer.command, cwd);
        update(sessionId, {
          sessionUpdate: "tool_call_update",
          toolCallId,
          status: "completed",
          title: answer.command,
          content: [],
          locations: [],
          kind: "execute",
        });
      } else if (outcome?.outcome?.outcome === "cancelled") {
        break;
      }
      // A rejection goes back to the model, which answers on (as the real one).
    }
    reply(id, { stopReason: turn.cancelled ? "cancelled" : "end_turn" });
    turn = null;
  }

  const lines = createInterface({ input: process.stdin });
  lines.on("line", (line) => {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    if (message.method === undefined) {
      const resolve = waiting.get(message.id);
      waiting.delete(message.id);
      if (resolve) resolve(message.result);
      return;
    }
    const { id, method, params } = message;
    switch (method) {
      case "initialize":
        reply(id, {
          protocolVersion: 1,
          authMethods: [
            { id: "oauth-personal", name: "Log in with Google", description: "Log in with your Google account" },
            { id: "gemini-api-key", name: "Gemini API key", description: "Use an API key with Gemini Developer API" },
            { id: "vertex-ai", name: "Vertex AI", description: "Use an API key with Vertex AI GenAI API" },
            { id: "gateway", name: "AI API Gateway", description: "Use a custom AI API Gateway" },
          ],
          agentInfo: { name: "gemini-cli", title: "Gemini CLI", version: VERSION },
          agentCapabilities: {
            loadSession: true,
            promptCapabilities: { image: true, audio: true, embeddedContext: true },
            mcpCapabilities: { http: true, sse: true },
          },
        });
        break;
      case "authenticate":
        reply(id, {});
        break;
      case "session/new": {
        if (!process.env.GEMINI_API_KEY && !process.env.GOOGLE_API_KEY) {
          fail(id, -32000, "Gemini API key is missing or not configured.");
          break;
        }
        const sessionId = `fake-${process.pid}-${cwdOf.size + 1}`;
        cwdOf.set(sessionId, params?.cwd ?? process.cwd());
        reply(id, {
          sessionId,
          modes: {
            availableModes: ["default", "autoEdit", "yolo", "plan"].map((mode) => ({ id: mode, name: mode })),
            currentModeId: "default",
          },
        });
        break;
      }
      case "session/set_mode":
      case "session/set_model":
        reply(id, {});
        break;
      case "session/prompt":
        if (!cwdOf.has(params?.sessionId)) {
          fail(id, -32602, "Session not found");
          break;
        }
        prompt(id, params.sessionId);
        break;
      case "session/cancel":
        if (turn) {
          turn.cancelled = true;
          for (const [pending, resolve] of waiting) {
            waiting.delete(pending);
            resolve({ outcome: { outcome: "cancelled" } });
          }
        }
        break;
      default:
        if (id !== undefined) fail(id, -32601, `Method not found: ${method}`);
    }
  });
  lines.on("close", () => process.exit(0));
}

// ---------------------------------------------------------------- TUI

const LOGO = [
  " ▝▜▄     Gemini CLI v" + VERSION,
  "   ▝▜▄",
  "  ▗▟▀    Authenticated with gemini-api-key /auth",
  " ▝▀    ",
];
const TIPS = [
  "Tips for getting started:",
  "1. Create GEMINI.md files to customize your interactions",
  "2. /help for more information",
  "3. Ask coding questions, edit code or run commands",
  "4. Be specific for the best results",
];
const WARNING =
  "⚠  Warning: True color (24-bit) support not detected. Using a terminal with true color enabled will result in a better visual experience.";

function pad(text, width) {
  const length = [...text].length;
  return length >= width ? text : text + " ".repeat(width - length);
}

/// Words wrapped at `width` columns.
function wrap(text, width) {
  const lines = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && [...`${line} ${word}`].length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  return line ? [...lines, line] : lines;
}

/// A round box as Ink draws it: `width` columns, one space of padding.
function box(width, lines) {
  const inner = width - 4;
  return [
    `╭${"─".repeat(width - 2)}╮`,
    ...lines.map((line) => `│ ${pad(line, inner)} │`),
    `╰${"─".repeat(width - 2)}╯`,
  ];
}

function tui(args) {
  const responses = readResponses(args.responses);
  const cwd = process.cwd();
  const folder = basename(cwd);
  const width = () => process.stdout.columns || 80;
  const height = () => process.stdout.rows || 24;
  const history = [];
  let pending = null; // { command, rows: [label, value], focus }
  let input = "";
  // The start-up warning goes with the first key (as on the real one).
  let pressed = false;
  let sessionAllowed = false;
  const untrusted = !folderTrusted(cwd);
  let trustDialog = untrusted;
  const authenticated = Boolean(settings()?.security?.auth?.selectedType);

  const title = (text) => process.stdout.write(`\x1b]0;${pad(text, 80)}\x07`);

  function screen() {
    const w = width();
    const lines = ["", ...LOGO, "", "", ...TIPS];
    if (untrusted) lines.push("", "ℹ Skipping project agents due to untrusted folder. To enable, ensure that the project root is trusted.");
    for (const block of history) lines.push(...block);
    if (!authenticated) {
      lines.push("", ...box(w, ["Get started", "", "How would you like to authenticate for this project?", "", "● 1. Login with Google", "  2. Use Gemini API Key", "  3. Vertex AI"]));
    } else if (pending) {
      lines.push(
        "",
        ...box(w, [
          // A command too long for the tool line shows the model's
          // description there; the nested box always holds it whole.
          [...`? Shell  ${pending.command}`].length <= w - 4 || !pending.description
            ? `? Shell  ${pending.command}`
            : `? Shell  ${pending.description}`,
          ...box(w - 4, wrap(pending.command, w - 8)),
          "Allow execution of [Shell]?",
          ...(/[<>]/.test(pending.command) ? ["Redirection detected. To auto-accept, press Shift+Tab"] : []),
          "",
          ...pending.rows.map(([label], index) => `${index === pending.focus ? "●" : " "} ${index + 1}. ${label}`),
        ]),
        ...(pressed ? [] : ["", WARNING, ""]),
      );
    } else if (!trustDialog) {
      // Three columns as the real footer: left, from 49 %, right-aligned.
      const columns = (left, middle, right) =>
        pad(pad(` ${left}`, Math.floor(w * 0.49)) + middle, w - 1 - [...right].length) + right;
      lines.push(
        "",
        "",
        pad(" ".repeat(Math.max(w - 16, 0)) + "? for shortcuts", w - 1),
        "─".repeat(w),
        " Shift+Tab to accept edits",
        "",
        ` >   ${input || "Type your message or @path/to/file"}`,
        "",
        columns("workspace (/directory)", "sandbox", "/model"),
        columns(cwd, "no sandbox", args.model),
      );
    }
    if (trustDialog) {
      lines.push(
        "",
        ...box(w - 2, [
          "",
          "Do you trust the files in this folder?",
          "",
          ...wrap(
            "Trusting a folder allows Gemini CLI to load its local configurations, including custom commands, hooks, MCP servers, agent skills, and settings. These configurations could execute code on your behalf or change the behavior of the CLI.",
            w - 6,
          ),
          "",
          "",
          `● 1. Trust folder (${folder})`,
          `  2. Trust parent folder (${basename(join(cwd, ".."))})`,
          "  3. Don't trust",
          "",
        ]).map((line) => ` ${line}`),
      );
    }
    const visible = lines.slice(Math.max(lines.length - height(), 0));
    process.stdout.write(`\x1b[?25l\x1b[H\x1b[2J${visible.join("\r\n")}`);
    title(pending ? `✋  Action Required (${folder})` : `◇  Ready (${folder})`);
  }

  function say(text) {
    history.push(["", `✦ ${text}`]);
  }

  /// Plays model answers until the turn ends or a confirmation waits.
  function play() {
    while (responses.length) {
      const answer = responses.shift();
      if (answer.text !== undefined) {
        say(answer.text);
        return;
      }
      if (sessionAllowed) {
        finish(answer.command, "✓ ");
        continue;
      }
      const rows = [["Allow once", "once"]];
      if (folderTrusted(cwd)) rows.push(["Allow for this session", "session"]);
      rows.push(["No, suggest changes (esc)", "no"]);
      pending = { command: answer.command, description: answer.description, rows, focus: 0 };
      return;
    }
  }

  function finish(command, mark) {
    const output = mark === "✓ " ? runShell(command, cwd) : "";
    const body = output ? output.split("\n") : [""];
    history.push(["", ...box(width() - 4, [`${mark} Shell ${command}`, ...body])]);
  }

  function answer(value) {
    const { command } = pending;
    pending = null;
    if (value === "no") {
      finish(command, "- ");
      history.push(["", "", "ℹ Request cancelled."]);
      return;
    }
    if (value === "session") sessionAllowed = true;
    finish(command, "✓ ");
    play();
  }

  function key(name) {
    if (pending) {
      const count = pending.rows.length;
      if (name === "up") pending.focus = (pending.focus + count - 1) % count;
      else if (name === "down") pending.focus = (pending.focus + 1) % count;
      else if (name === "enter") answer(pending.rows[pending.focus][1]);
      else if (name === "escape") answer("no");
      else if (/^[1-9]$/.test(name) && Number(name) <= count) answer(pending.rows[Number(name) - 1][1]);
      return;
    }
    if (!authenticated) return;
    if (trustDialog) {
      if (name === "enter" || name === "1") trustDialog = false;
      return;
    }
    if (name === "enter") {
      if (!input.trim()) return;
      history.push(["", ` > ${input}`, ""]);
      input = "";
      play();
    } else if (name === "backspace") {
      input = input.slice(0, -1);
    } else if ([...name].length === 1) {
      input += name;
    }
  }

  function keys(chunk) {
    pressed = true;
    let rest = chunk;
    while (rest.length) {
      const arrow = /^\x1b[[O]([ABCD])/.exec(rest);
      if (arrow) {
        key({ A: "up", B: "down", C: "right", D: "left" }[arrow[1]]);
        rest = rest.slice(arrow[0].length);
      } else if (rest[0] === "\x1b") {
        key("escape");
        rest = rest.slice(1);
      } else if (rest[0] === "\r" || rest[0] === "\n") {
        key("enter");
        rest = rest.slice(1);
      } else if (rest[0] === "\x7f") {
        key("backspace");
        rest = rest.slice(1);
      } else if (rest[0] === "\x03" || rest[0] === "\x04") {
        process.stdout.write("\x1b[?25h\r\n");
        process.exit(0);
      } else {
        const [char] = rest;
        key(char);
        rest = rest.slice(char.length);
      }
    }
    screen();
  }

  if (process.stdin.isTTY) process.stdin.setRawMode(true);
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", keys);
  process.stdout.on("resize", screen);
  if (args.prompt && authenticated) {
    history.push(["", ` > ${args.prompt}`, ""]);
    play();
  }
  screen();
}

const args = parseArgs(process.argv.slice(2));
if (args.acp) acp(args);
else tui(args);
