/**
 * What a run leaves with its permissions taken away, as an unprivileged server meets it (root reads and writes
 * any folder): through setpriv when the suite runs as root. A folder a command made unwritable after changing a
 * tracked file in it (`chmod 500 src`) failed the reset, and a folder of the sandbox's home the prune must look
 * into (`chmod 0 ~/go`, whose go/pkg/mod is kept, or the home itself) failed the prune: every later call of the
 * session failed, and what the command planted stayed. As the worktree's clean does for a folder made
 * unwritable, both give the owner its rights back. A folder the baseline's commands left unreadable (`chmod 0
 * build`) failed the start's note of the build outputs it made, and with it the start.
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

/** Runs `script` (an ES module, `process.argv[1]` a folder of its own) as an unprivileged user; its stdout as JSON. */
function asUser(script: string): unknown {
  mkdirSync(path.join(ROOT, ".tmp"), { recursive: true });
  const d = mkdtempSync(path.join(ROOT, ".tmp", "trm-unprivileged-"));
  dirs.push(d);
  if (root) chownSync(d, NOBODY, NOBODY);
  const node = [process.execPath, ...TS_IMPORT, "--input-type=module", "-e", script, d];
  const env = { PATH: process.env.PATH ?? "", HOME: d, GIT_CONFIG_NOSYSTEM: "1" };
  const out = root
    ? execFileSync("setpriv", [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", ...node], { env, encoding: "utf8" })
    : execFileSync(node[0]!, node.slice(1), { env, encoding: "utf8" });
  return JSON.parse(out);
}

/** A repository at `wt` with src/a.py committed. */
const REPO = `
  const git = (...a) => execFileSync("git", ["-C", wt, "-c", "user.name=a", "-c", "user.email=a@b", ...a]);
  mkdirSync(wt + "/src", { recursive: true });
  git("init", "-q");
  writeFileSync(wt + "/src/a.py", "a\\n");
  git("add", "src/a.py");
  git("commit", "-qm", "a");`;

describe("a worktree's reset after a run", () => {
  it.skipIf(root && !setpriv)("goes through a folder a command made unwritable after changing a file in it (chmod 500 src)", () => {
    const script = `
      import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
      import { execFileSync } from "node:child_process";
      import { resetTo } from ${JSON.stringify(srcModule("session/leftovers.js"))};
      const wt = process.argv[1] + "/wt";
      ${REPO}
      writeFileSync(wt + "/src/a.py", "changed by a command\\n");
      chmodSync(wt + "/src", 0o500);
      let threw = null;
      try {
        await resetTo(wt, "HEAD");
      } catch (e) {
        threw = e.message.split("\\n")[0];
      }
      chmodSync(wt + "/src", 0o700);
      console.log(JSON.stringify({ threw, a: readFileSync(wt + "/src/a.py", "utf8") }));`;
    expect(asUser(script)).toEqual({ threw: null, a: "a\n" });
  });
});

describe("the sandbox home's prune", () => {
  it.skipIf(root && !setpriv)("goes into a folder a command made unreadable (and the home itself): the caches stay, the rest goes", () => {
    const script = `
      import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
      import { execFileSync } from "node:child_process";
      import { removeLeftovers } from ${JSON.stringify(srcModule("session/leftovers.js"))};
      const d = process.argv[1], wt = d + "/wt", home = d + "/home";
      ${REPO}
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
    expect(asUser(script)).toEqual({ threw: null, planted: false, gitconfig: false, cache: true });
  });
});

describe("the start's note of the build outputs the baseline made", () => {
  it.skipIf(root && !setpriv)(
    "is made when the baseline's commands left a folder unreadable (chmod 0 build), which git still lists, and names no __pycache__",
    () => {
      const script = `
      import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
      import { execFileSync } from "node:child_process";
      import { leftoverFolders } from ${JSON.stringify(srcModule("session/leftovers.js"))};
      const d = process.argv[1], wt = d + "/wt";
      ${REPO}
      writeFileSync(d + "/kept.json", JSON.stringify({ v: 1, made: [], links: [], layers: [], home: [] }));
      mkdirSync(wt + "/target/debug", { recursive: true });
      writeFileSync(wt + "/target/debug/lib.bin", Buffer.alloc(2 * 1024 * 1024));
      mkdirSync(wt + "/build/x", { recursive: true });
      writeFileSync(wt + "/build/x/big", Buffer.alloc(2 * 1024 * 1024));
      chmodSync(wt + "/build", 0);
      // Bytecode is made again whatever the note says: setupCmd does not keep it (keptPaths).
      mkdirSync(wt + "/src/__pycache__", { recursive: true });
      writeFileSync(wt + "/src/__pycache__/a.cpython-311.pyc", Buffer.alloc(2 * 1024 * 1024));
      let threw = null, folders = null;
      try {
        folders = await leftoverFolders({ top: wt, linkPaths: [], keptFile: d + "/kept.json", home: null }, wt);
      } catch (e) {
        threw = e.message;
      }
      chmodSync(wt + "/build", 0o700);
      console.log(JSON.stringify({ threw, folders }));`;
      expect(asUser(script)).toEqual({ threw: null, folders: ["target/"] });
    },
  );
});

describe("a tracked folder a command took its owner's rights from", () => {
  it.skipIf(root && !setpriv)("hides no change from the check after a run (chmod 0 src): the changed file is reset", () => {
    const script = `
      import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
      import { execFileSync } from "node:child_process";
      import { restoreTracked } from ${JSON.stringify(srcModule("session/leftovers.js"))};
      const wt = process.argv[1] + "/wt";
      ${REPO}
      const head = execFileSync("git", ["-C", wt, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
      writeFileSync(wt + "/src/a.py", "forged\\n");
      chmodSync(wt + "/src", 0);
      let threw = null;
      try {
        await restoreTracked(wt, head);
      } catch (e) {
        threw = e.message.split("\\n")[0];
      }
      chmodSync(wt + "/src", 0o700);
      console.log(JSON.stringify({ threw, a: readFileSync(wt + "/src/a.py", "utf8") }));`;
    expect(asUser(script)).toEqual({ threw: null, a: "a\n" });
  });

  it.skipIf(root && !setpriv)("keeps nothing planted in it from the clean (chmod 300 src: git cannot list it), and is readable again", () => {
    const script = `
      import { chmodSync, existsSync, lstatSync, mkdirSync, writeFileSync } from "node:fs";
      import { execFileSync } from "node:child_process";
      import { removeLeftovers } from ${JSON.stringify(srcModule("session/leftovers.js"))};
      const d = process.argv[1], wt = d + "/wt";
      ${REPO}
      writeFileSync(d + "/kept.json", JSON.stringify({ v: 1, made: [], links: [], layers: [], home: [] }));
      writeFileSync(wt + "/src/conftest.py", "planted\\n");
      chmodSync(wt + "/src", 0o300);
      let threw = null;
      try {
        await removeLeftovers({ top: wt, linkPaths: [], keptFile: d + "/kept.json", home: null }, wt);
      } catch (e) {
        threw = e.message.split("\\n")[0];
      }
      const mode = lstatSync(wt + "/src").mode & 0o700;
      chmodSync(wt + "/src", 0o700);
      console.log(JSON.stringify({ threw, planted: existsSync(wt + "/src/conftest.py"), mode }));`;
    expect(asUser(script)).toEqual({ threw: null, planted: false, mode: 0o700 });
  });
});
