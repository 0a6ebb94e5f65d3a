import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type CallToolResult, CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PKG_ROOT = path.resolve(HERE, "..", "..");

/** Git for the demo's own fixture repository (the "user's" commit needs an identity; code-trm does not). */
function userGit(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "Demo User",
      GIT_AUTHOR_EMAIL: "demo@example.com",
      GIT_COMMITTER_NAME: "Demo User",
      GIT_COMMITTER_EMAIL: "demo@example.com",
    },
  });
}

const out = (s = "") => process.stdout.write(`${s}\n`);
const indent = (s: string) => s.replace(/^/gm, "    ");

const MEDIAN_WRONG = `export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length / 2;
  return (s[mid - 1] + s[mid]) / 2;
}`;

/**
 * Runs a real session end to end: a fixture repository with a failing test, the server started over
 * stdio exactly as an MCP client starts it, a wrong fix that is undone, the right fix validated as a dry
 * run and then submitted, and the session as plain git and `code-trm log` show it afterwards.
 */
export async function runDemo(): Promise<void> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "trm-demo-"));
  try {
    await demoIn(path.join(tmp, "js-stats"));
  } finally {
    rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
    out(`\ndemo repository removed: ${tmp}`);
  }
}

async function demoIn(dir: string): Promise<void> {
  cpSync(path.join(PKG_ROOT, "fixtures", "repos", "js-stats"), dir, { recursive: true });
  userGit(dir, "init", "-q", "-b", "main");
  userGit(dir, "add", "-A");
  userGit(dir, "commit", "-q", "-m", "stats library with a median bug");
  // Uncommitted work of the user's: it goes into the session's baseline, and stays where it is.
  writeFileSync(path.join(dir, "NOTES.md"), "work in progress, not committed\n");
  const before = {
    status: userGit(dir, "status", "--porcelain"),
    head: userGit(dir, "rev-parse", "HEAD").trim(),
    index: readFileSync(path.join(dir, ".git", "index")).toString("base64"),
  };

  out(`demo repository (a temporary copy, removed when the demo ends; look at it with git while it runs): ${dir}`);
  out(`  a small stats library; test "median of even length" fails. Uncommitted file NOTES.md is present.`);
  const transport = new StdioClientTransport({ command: process.execPath, args: [path.join(PKG_ROOT, "dist", "cli", "main.js")], stderr: "ignore" });
  const client = new Client({ name: "code-trm-demo", version: "1.0.0" });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = (await client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: 120_000 })) as CallToolResult;
    const text = r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
    if (r.isError) throw new Error(`${name}: ${text}`);
    // biome-ignore lint/suspicious/noExplicitAny: the demo reads the results loosely, as a client of the server does
    return { s: r.structuredContent as Record<string, any>, text };
  };

  try {
    const { tools } = await client.listTools();
    out(`\nconnected to code-trm over stdio: ${tools.length} tools`);

    out(`\n> trm_start_session { testCmd: "node --test", preflight: true, halt: { maxSteps: 6, patienceNoImprove: 2 } }`);
    const start = await call("trm_start_session", { repoPath: dir, testCmd: "node --test", preflight: true, halt: { maxSteps: 6, patienceNoImprove: 2 } });
    out(indent(start.text));
    const sessionId = start.s.sessionId as string;

    out(`\n> trm_submit_candidate (step 1: a wrong fix: averages the middle pair even for odd lengths)`);
    const s1 = await call("trm_submit_candidate", {
      sessionId,
      candidate: {
        mode: "files",
        files: [
          {
            path: "src/stats.js",
            content: readFileSync(path.join(dir, "src/stats.js"), "utf8").replace(/export function median[\s\S]*$/, `${MEDIAN_WRONG}\n`),
          },
        ],
      },
      rationale: "median: average the two middle elements",
    });
    out(indent(s1.text));

    out(`\n> trm_undo (the wrong fix goes; it stays reachable under refs/trm/<id>/undone/)`);
    const u = await call("trm_undo", { sessionId });
    out(indent(u.text.split("\n")[0]!));

    // The right fix as line-anchored edits: a few lines instead of the whole file.
    const rightFix = {
      mode: "modify",
      changes: [
        {
          file: "src/stats.js",
          edits: [
            {
              type: "replace",
              oldText: "  return s[Math.floor(s.length / 2)];",
              newText: "  const mid = Math.floor(s.length / 2);\n  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;",
            },
          ],
        },
      ],
    };
    out(`\n> trm_validate_candidate (dry run of the right fix: nothing is written, nothing runs)`);
    out(indent((await call("trm_validate_candidate", { sessionId, candidate: rightFix })).text));

    out(`\n> trm_submit_candidate (the right fix)`);
    const s2 = await call("trm_submit_candidate", {
      sessionId,
      candidate: rightFix,
      rationale: "median: middle element for odd lengths, mean of the middle pair for even lengths",
    });
    out(indent(s2.text));

    out(`\n> trm_get_state`);
    out(indent((await call("trm_get_state", { sessionId })).text));

    const branch = start.s.branch as string;
    out(`\n$ git log --format='%h %s%n%(trailers:key=TRM-Score,key=TRM-Tests,separator=%x2C )' ${branch}`);
    out(
      indent(
        userGit(dir, "log", "--format=%h %s%n  %(trailers:key=TRM-Score,key=TRM-Tests,separator=%x2C )", branch, `${branch}/baseline~1..${branch}`).replace(
          /\n+$/,
          "",
        ),
      ),
    );
    out(`\n$ code-trm log ${sessionId}`);
    out(
      indent(
        execFileSync(process.execPath, [path.join(PKG_ROOT, "dist", "cli", "main.js"), "log", sessionId, "--repo", dir], {
          encoding: "utf8",
          env: { ...process.env, NO_COLOR: "1" },
        }).trimEnd(),
      ),
    );
    out(`\n$ git diff --stat ${branch}/baseline ${branch}`);
    out(indent(userGit(dir, "diff", "--stat", `${branch}/baseline`, branch).trimEnd()));

    out(`\n> trm_end_session`);
    out(indent((await call("trm_end_session", { sessionId })).text));
  } finally {
    await client.close();
  }

  const after = {
    status: userGit(dir, "status", "--porcelain"),
    head: userGit(dir, "rev-parse", "HEAD").trim(),
    index: readFileSync(path.join(dir, ".git", "index")).toString("base64"),
  };
  const same = after.status === before.status && after.head === before.head && after.index === before.index;
  out(`\nyour checkout: ${same ? "unchanged (same HEAD, index bytes and status; NOTES.md still uncommitted)" : "CHANGED: this is a bug"}`);
  if (!same) process.exitCode = 1;
}
