import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { startServer, tmpEnv } from "../helpers/client.js";
import { filesCandidate } from "../helpers/fixtures.js";
import { checkoutState, g, makeRepo, ROOT, tmpDir } from "../helpers/repo.js";

type Any = Record<string, any>;

/** The whole tools/list a model sees on every turn; later issues' tools included. */
const TOKEN_BUDGET = 2500;
const TOOL_SNAPSHOTS = path.join(ROOT, "test", "snapshots", "tools");

describe("MCP conventions", () => {
  it("declares every tool with all four annotations, an output schema, and stays within the token budget", async () => {
    const srv = await startServer();
    const { tools } = await srv.client.listTools();
    for (const t of tools) {
      expect(Object.keys(t.annotations ?? {}).sort(), t.name).toEqual(["destructiveHint", "idempotentHint", "openWorldHint", "readOnlyHint"]);
      expect(t.outputSchema, t.name).toBeDefined();
      expect(t.name).toMatch(/^trm_[a-z_]+$/);
    }
    const seen = tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
    const tokens = countTokens(JSON.stringify(seen));
    expect(tokens).toBeLessThanOrEqual(TOKEN_BUDGET);
    // One snapshot per tool (as github-mcp-server's __toolsnaps__): a change to a tool's description,
    // schemas or hints is a reviewed diff of that tool's own file (`npx vitest run -u` rewrites them).
    for (const t of tools) {
      const listed = { name: t.name, description: t.description, inputSchema: t.inputSchema, outputSchema: t.outputSchema, annotations: t.annotations };
      await expect(`${JSON.stringify(listed, null, 2)}\n`, t.name).toMatchFileSnapshot(`../snapshots/tools/${t.name}.json`);
    }
    // A missing file fails above (in CI; elsewhere it is written): here, a tool renamed or removed.
    const listedFiles = new Set(tools.map((t) => `${t.name}.json`));
    expect(
      readdirSync(TOOL_SNAPSHOTS).filter((f) => !listedFiles.has(f)),
      "snapshots of tools no longer listed: delete them",
    ).toEqual([]);
    await srv.close();
  });

  it("sends progress notifications while a command runs", async () => {
    const repo = makeRepo("js-stats");
    const srv = await startServer({ env: { CODE_TRM_PROGRESS_MS: "200" } });
    const { sessionId } = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: "sleep 1.2; node --test" });
    const progress: Any[] = [];
    await srv.call("trm_submit_candidate", { sessionId, candidate: filesCandidate("a.txt", "a\n") }, { onprogress: (p) => progress.push(p as Any) });
    expect(progress.length).toBeGreaterThanOrEqual(4);
    expect(progress[0].message).toMatch(/running test/);
    expect(progress.map((p) => p.progress)).toEqual([...progress.map((p) => p.progress)].sort((a, b) => a - b));
    await srv.close();
  });

  it("stops the running command when the client cancels, rolls the candidate back and records nothing", async () => {
    const repo = makeRepo("js-stats");
    const before = checkoutState(repo);
    const pidFile = path.join(repo, "..", "cancel.pid");
    const srv = await startServer();
    const { sessionId, worktreePath } = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: `sh -c 'sleep 300 & echo $! > ${pidFile}; wait'` });
    const ac = new AbortController();
    const call = srv.call("trm_submit_candidate", { sessionId, candidate: filesCandidate("a.txt", "a\n") }, { signal: ac.signal });
    await new Promise((r) => setTimeout(r, 1000));
    ac.abort();
    await expect(call).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 2500));
    const pid = Number(readFileSync(pidFile, "utf8"));
    let st = "gone";
    try {
      st = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? "gone";
    } catch {
      /* gone */
    }
    expect(["gone", "Z"]).toContain(st);
    const state = await srv.call<Any>("trm_get_state", { sessionId });
    expect(state.step).toBe(0);
    expect(g(worktreePath, "status", "--porcelain")).toBe("");
    await srv.close();
    expect(checkoutState(repo)).toEqual(before);
  });

  it("writes nothing but JSON-RPC on stdout, even when commands are noisy", async () => {
    const repo = makeRepo("js-stats");
    const child = spawn(process.execPath, [path.join(ROOT, "dist", "cli", "main.js")], {
      env: { ...tmpEnv(), PATH: process.env.PATH ?? "", HOME: tmpDir(), CODE_TRM_STATE_DIR: tmpDir() },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
    const waitFor = async (id: number) => {
      for (let i = 0; i < 600 && !out.includes(`"id":${id}`); i++) await new Promise((r) => setTimeout(r, 50));
    };
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
    });
    await waitFor(1);
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "trm_start_session", arguments: { repoPath: repo, testCmd: "echo noisy; echo more >&2; node --test", preflight: true } },
    });
    await waitFor(2);
    child.kill();
    const lines = out.split("\n").filter(Boolean);
    expect(lines.length).toBe(2);
    for (const l of lines) expect(JSON.parse(l)).toMatchObject({ jsonrpc: "2.0" });
    expect(out).not.toMatch(/^noisy/m);
  });
});
