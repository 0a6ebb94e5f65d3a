import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { readFileSync } from "node:fs";
const repo = process.argv[2]; const file = process.argv[3]; const dist = process.argv[4] ?? "/work/main/dist";
const t = new StdioClientTransport({ command: process.execPath, args: [dist + "/cli/main.js"], stderr: "pipe", env: { ...process.env, CODE_TRM_PROFILE: "1" } });
let err = ""; t.stderr.on("data", (d) => (err += d));
const c = new Client({ name: "x", version: "0" }); await c.connect(t);
const rss = () => { const s = readFileSync(`/proc/${t.pid}/status`, "utf8"); return `${/VmRSS:\s+(\d+)/.exec(s)[1] >> 10} MB now, peak ${/VmHWM:\s+(\d+)/.exec(s)[1] >> 10} MB`; };
const call = async (name, args) => { const t0 = performance.now(); const r = await c.callTool({ name, arguments: args }, undefined, { timeout: 600000 }); if (r.isError) throw new Error(JSON.stringify(r.content)); console.log(name, (performance.now() - t0).toFixed(0), "ms;", rss()); return r.structuredContent; };
console.log("idle:", rss());
const { sessionId } = await call("trm_start_session", { repoPath: repo, buildCmd: "true", testCmd: "true", lintCmd: "true" });
await new Promise((r) => setTimeout(r, 500));
for (let i = 0; i < 4; i++) { await new Promise((r) => setTimeout(r, 300)); await call("trm_submit_candidate", { sessionId, candidate: { mode: "files", files: [{ path: file, content: `// ${i}\n` }] } }); }
await call("trm_undo", { sessionId });
console.log(err.split("\n").filter((l) => l.startsWith("profile request")).map((l) => l.slice(0, 400)).join("\n"));
await call("trm_end_session", { sessionId, discard: true });
await c.close();
