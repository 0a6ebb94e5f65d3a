/**
 * The sandbox's private home is pruned after each run to its caches (leftovers.ts): a command that took the
 * permissions from a folder the prune must look into (`chmod 0 ~/go`, whose go/pkg/mod is kept, or the home
 * itself) made every later cleanup fail, so the session stopped at every call and what it planted stayed. As
 * the worktree's clean does for a folder made unwritable, the prune gives the owner its rights back first.
 * Run as an unprivileged user (a root server reads any folder): through setpriv when the suite runs as root.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../../helpers/repo.js";
import { srcModule, TS_IMPORT } from "../../helpers/ts-import.js";

const root = process.getuid?.() === 0;
const setpriv = spawnSync("sh", ["-c", "command -v setpriv"]).status === 0;
const NOBODY = 65534;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("the sandbox home's prune", () => {
  it.skipIf(root && !setpriv)("goes into a folder a command made unreadable (and the home itself): the caches stay, the rest goes", () => {
    mkdirSync(path.join(ROOT, ".tmp"), { recursive: true });
    const d = mkdtempSync(path.join(ROOT, ".tmp", "trm-home-prune-"));
    dirs.push(d);
    if (root) chownSync(d, NOBODY, NOBODY);
    const script = `
      import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
      import { execFileSync } from "node:child_process";
      import { removeLeftovers } from ${JSON.stringify(srcModule("session/leftovers.js"))};
      const d = process.argv[1], wt = d + "/wt", home = d + "/home";
      mkdirSync(wt);
      const git = (...a) => execFileSync("git", ["-C", wt, "-c", "user.name=a", "-c", "user.email=a@b", ...a]);
      git("init", "-q");
      writeFileSync(wt + "/a.txt", "a\\n");
      git("add", "a.txt");
      git("commit", "-qm", "a");
      writeFileSync(d + "/kept.json", JSON.stringify({ v: 1, made: [], links: [], layers: [], home: [] }));
      // What a run leaves: Go's module cache (kept), a file beside it and a .gitconfig (not kept).
      mkdirSync(home + "/go/pkg/mod", { recursive: true });
      writeFileSync(home + "/go/pkg/mod/cached", "module\\n");
      writeFileSync(home + "/go/planted", "x\\n");
      writeFileSync(home + "/.gitconfig", "[core]\\n");
      chmodSync(home + "/go/pkg", 0o100);
      chmodSync(home + "/go", 0);
      chmodSync(home, 0o300);
      let threw = null;
      try {
        await removeLeftovers({ top: wt, linkPaths: [], keptFile: d + "/kept.json", home }, wt);
      } catch (e) {
        threw = e.message;
      }
      chmodSync(home, 0o700);
      chmodSync(home + "/go", 0o700);
      chmodSync(home + "/go/pkg", 0o700);
      console.log(JSON.stringify({ threw, planted: existsSync(home + "/go/planted"), gitconfig: existsSync(home + "/.gitconfig"), cache: existsSync(home + "/go/pkg/mod/cached") }));`;
    const node = [process.execPath, ...TS_IMPORT, "--input-type=module", "-e", script, d];
    const env = { PATH: process.env.PATH ?? "", HOME: d, GIT_CONFIG_NOSYSTEM: "1" };
    const out = root
      ? execFileSync("setpriv", [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", ...node], { env, encoding: "utf8" })
      : execFileSync(node[0]!, node.slice(1), { env, encoding: "utf8" });
    expect(JSON.parse(out)).toEqual({ threw: null, planted: false, gitconfig: false, cache: true });
  });
});
