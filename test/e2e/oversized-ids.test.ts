/**
 * A message past LIMITS.maxRequestBytes (121 MiB) is skipped unread, as a raw client sends it, and
 * answered with an error for id null: whatever it holds, the server stays up and answers the next request.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tmpEnv } from "../helpers/client.js";
import { ROOT, tmpDir } from "../helpers/repo.js";

type Answer = { id: unknown; result?: unknown; error?: { code: number; message: string } };

function rawServer() {
  const child = spawn(process.execPath, [path.join(ROOT, "dist", "cli", "main.js")], {
    env: { ...tmpEnv(), PATH: process.env.PATH ?? "", HOME: tmpDir("trm-home-"), CODE_TRM_STATE_DIR: tmpDir("trm-state-") },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  const answers = () =>
    out
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Answer);
  const write = (text: string) => new Promise<void>((r) => (child.stdin.write(text) ? r() : child.stdin.once("drain", () => r())));
  const answerTo = async (id: unknown) => {
    for (let i = 0; i < 400; i++) {
      const a = answers().find((x) => x.id === id);
      if (a || child.exitCode !== null) return a;
      await new Promise((r) => setTimeout(r, 50));
    }
    return undefined;
  };
  return { child, answers, write, answerTo, exited, stderr: () => err };
}

let child: ChildProcessWithoutNullStreams | undefined;
afterEach(() => {
  child?.kill();
  child = undefined;
});

const init = {
  jsonrpc: "2.0",
  id: "init",
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
};
const line = (m: object) => `${JSON.stringify(m)}\n`;
const pad = "x".repeat(122 * 1024 * 1024);

/** A raw server past its initialize handshake. */
async function readyServer() {
  const srv = rawServer();
  child = srv.child;
  await srv.write(line(init));
  expect(await srv.answerTo("init")).toBeDefined();
  await srv.write(line({ jsonrpc: "2.0", method: "notifications/initialized" }));
  return srv;
}

describe("an oversized message", () => {
  it("whose last bytes hold an id JSON cannot read (a bad escape) does not end the server", async () => {
    const srv = await readyServer();
    await srv.write(`{"jsonrpc":"2.0","method":"ping","params":{"pad":"${pad}"},"id":"\\x"}\n`);
    await srv.write(line({ jsonrpc: "2.0", id: 3, method: "ping" }));
    expect(await srv.answerTo(3), srv.stderr()).toMatchObject({ result: {} });
    expect(srv.child.exitCode).toBeNull();
  });

  it("is answered once with an error for id null (its id is not read), never for an id nested in its params", async () => {
    const srv = await readyServer();
    const args = { sessionId: "x", content: pad, related: [{ id: 1, note: "last edit" }] };
    await srv.write(line({ method: "tools/call", params: { name: "trm_get_state", arguments: args }, jsonrpc: "2.0", id: 2 }));
    await srv.write(line({ jsonrpc: "2.0", id: 3, method: "ping" }));
    expect(await srv.answerTo(3)).toMatchObject({ result: {} });
    expect(srv.answers().filter((a) => a.id !== "init" && a.id !== 3)).toEqual([
      { jsonrpc: "2.0", id: null, error: expect.objectContaining({ code: -32600 }) },
    ]);
  });
});
