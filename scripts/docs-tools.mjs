// Writes docs/tools.md's tool reference from the tools' schemas in src/mcp/tools (after a build).
// test/unit/mcp/tool-docs.test.ts fails while docs/tools.md differs from what this writes.
import { readFileSync, writeFileSync } from "node:fs";
import { allTools } from "../dist/mcp/server.js";
import { withToolsReference } from "../dist/mcp/tool-docs.js";
import { SessionManager } from "../dist/session/manager.js";

const file = new URL("../docs/tools.md", import.meta.url);
const before = readFileSync(file, "utf8");
const after = withToolsReference(before, allTools(new SessionManager()));
if (after !== before) writeFileSync(file, after);
console.log(after !== before ? "docs/tools.md: tool reference updated" : "docs/tools.md: tool reference up to date");
