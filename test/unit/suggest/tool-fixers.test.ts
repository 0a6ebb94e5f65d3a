import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Diagnostic } from "../../../src/evaluate/types.js";
import { autoflake } from "../../../src/suggest/fixers/autoflake.js";
import { clippy, crateDirOf } from "../../../src/suggest/fixers/clippy.js";
import { gofmt, goimports } from "../../../src/suggest/fixers/go.js";
import { locateTool } from "../../../src/suggest/fixers/locate.js";
import { missingFixerHints, planToolFixes } from "../../../src/suggest/fixers/registry.js";
import { ruffCheck, ruffFormat } from "../../../src/suggest/fixers/ruff.js";
import { runToolFixer } from "../../../src/suggest/fixers/run.js";
import { type FixInput, filesNamedIn, type ToolFixer } from "../../../src/suggest/fixers/types.js";
import { isSecretName } from "../../../src/util/secrets.js";
import { g, tmpDir } from "../../helpers/repo.js";

const flake8 = (file: string, line: number, code: string, message: string): Diagnostic => ({
  file,
  line,
  column: 1,
  code,
  message,
  severity: "error",
  source: "flake8",
});
const input = (diagnostics: Diagnostic[], commands: FixInput["commands"] = []): FixInput => ({ diagnostics, commands });

describe("what each fixer takes on", () => {
  it("ruff check: the reported codes it fixes safely, from flake8 or ruff, never pylint's", () => {
    const t = ruffCheck.targets(
      input([
        flake8("pkg/a.py", 1, "F401", "'os' imported but unused"),
        flake8("pkg/a.py", 9, "E501", "line too long (99 > 79 characters)"),
        flake8("pkg/b.py", 3, "W291", "trailing whitespace"),
        { file: "pkg/c.py", line: 1, code: "W0611", message: "Unused import os", severity: "warning", source: "pylint" },
      ]),
    )!;
    expect(t.problems.map((d) => d.code)).toEqual(["F401", "W291"]);
    expect(t.files).toEqual(["pkg/a.py", "pkg/b.py"]);
    expect(ruffCheck.command({ bin: "/x/ruff", target: t, files: t.files!, tracked: [], aside: "/a" }).argv).toEqual([
      "/x/ruff",
      "check",
      "--fix",
      "--exit-zero",
      "--no-cache",
      "--select",
      "F401,W291",
      "--",
      "./pkg/a.py",
      "./pkg/b.py",
    ]);
    expect(ruffCheck.targets(input([flake8("pkg/a.py", 9, "E501", "line too long")]))).toBeNull();
  });

  it("autoflake removes unused variables only when one was reported", () => {
    const imports = autoflake.targets(input([flake8("a.py", 1, "F401", "'os' imported but unused")]))!;
    expect(autoflake.command({ bin: "af", target: imports, files: ["a.py"], tracked: [], aside: "" }).argv).toEqual([
      "af",
      "--in-place",
      "--remove-all-unused-imports",
      "--",
      "./a.py",
    ]);
    const both = autoflake.targets(input([flake8("a.py", 1, "F401", "x"), flake8("a.py", 4, "F841", "local variable 'y' is assigned to but never used")]))!;
    expect(autoflake.command({ bin: "af", target: both, files: ["a.py"], tracked: [], aside: "" }).argv).toContain("--remove-unused-variables");
  });

  it("ruff format and gofmt only when the session's own command calls them and failed", () => {
    const cmds = (cmd: string, failed: boolean, output = "") => input([], [{ cmd, failed, output }]);
    expect(ruffFormat.targets(cmds("ruff format --check .", true, "Would reformat: pkg/a.py\n1 file would be reformatted"))?.files).toEqual(["pkg/a.py"]);
    // ruff 0.16's --check names files as diagnostics do.
    expect(
      ruffFormat.targets(
        cmds(
          "ruff format --check pkg",
          true,
          "unformatted: File would be reformatted\n --> pkg/fmt.py:1:6\n  |\n  - x = {  'a':1 }\n1 + x = {\"a\": 1}\n  |\n\n1 file would be reformatted\n",
        ),
      )?.files,
    ).toEqual(["pkg/fmt.py"]);
    expect(ruffFormat.targets(cmds("ruff format --check .", false))).toBeNull();
    expect(ruffFormat.targets(cmds("ruff check .", true))).toBeNull();
    expect(gofmt.targets(cmds('test -z "$(gofmt -l .)"', true))).toMatchObject({ files: null, problems: [] });
    expect(gofmt.targets(cmds("gofmt -l . | tee /dev/stderr | (! read)", true, "calc.go\nsub/x.go\n"))?.files).toEqual(["calc.go", "sub/x.go"]);
    expect(gofmt.targets(cmds("goimports -l .", true, "calc.go"))).toBeNull();
    expect(goimports.targets(cmds("goimports -l .", true, "calc.go"))?.files).toEqual(["calc.go"]);
  });

  it("goimports: unused imports as Go 1.19 build, 1.19 vet and 1.20+ word them, and undefined packages", () => {
    const go = (file: string, message: string): Diagnostic => ({ file, line: 3, column: 8, message, severity: "error", source: "go" });
    const t = goimports.targets(
      input([
        go("a.go", 'imported and not used: "os"'),
        go("b.go", '"os" imported but not used'),
        go("c.go", '"fmt" imported and not used'),
        go("d.go", "undefined: strings"),
        go("e.go", "undefined: myVar.Field"),
        go("f.go", "missing return"),
      ]),
    )!;
    expect(t.files).toEqual(["a.go", "b.go", "c.go", "d.go"]);
  });

  it("clippy: rustc and clippy lints, not errors with an E-code; it runs in the crate of the first file", () => {
    const rs = (file: string, message: string, code?: string): Diagnostic => ({
      file,
      line: 2,
      message,
      severity: code ? "error" : "warning",
      source: "rustc",
      ...(code ? { code } : {}),
    });
    const t = clippy.targets(input([rs("crates/a/src/lib.rs", "unneeded `return` statement"), rs("crates/a/src/lib.rs", "mismatched types", "E0308")]))!;
    expect(t.problems).toHaveLength(1);
    expect(t.files).toBeNull();
    expect(clippy.targets(input([rs("src/main.rs", "mismatched types", "E0308")]))).toBeNull();
    const tracked = ["Cargo.toml", "crates/a/Cargo.toml", "crates/a/src/lib.rs", "src/main.rs"];
    expect(crateDirOf("crates/a/src/lib.rs", tracked)).toBe("crates/a");
    expect(crateDirOf("src/main.rs", tracked)).toBe("");
    expect(crateDirOf("src/main.rs", ["src/main.rs"])).toBeNull();
    const cmd = clippy.command({ bin: "/opt/cargo/bin/cargo-clippy", target: t, files: [], tracked, aside: "/tmp/aside" });
    expect(cmd).toMatchObject({ cwd: "crates/a", env: { CARGO_TARGET_DIR: "/tmp/aside" } });
    expect(cmd.argv.slice(1, 3)).toEqual(["clippy", "--fix"]);
    expect(cmd.argv).not.toContain("--all-targets");
    // The scope of the session's own cargo command is kept; other words of it are not.
    const scoped = clippy.targets({
      diagnostics: t.problems,
      commands: [
        { cmd: "cargo clippy --all-targets --workspace --message-format=short -- -D warnings", failed: true, output: "" },
        { cmd: "cargo test --tests", failed: false, output: "" },
      ],
    })!;
    expect(scoped.args).toEqual(["--all-targets", "--tests", "--workspace"]);
  });

  it("file names in a tool's output: relative paths only, no .., no spaces, no absolute paths", () => {
    expect(filesNamedIn("a.go\n./b/c.go\n/etc/x.go\n../up.go\nd e.go\ndiff -u f.go.orig f.go\nok\n", [".go"])).toEqual(["a.go", "b/c.go", "f.go"]);
  });
});

describe("which fixers run, and what is said when none is installed", () => {
  const f401 = flake8("pkg/a.py", 1, "F401", "'os' imported but unused");
  const w291 = flake8("pkg/a.py", 2, "W291", "trailing whitespace");
  const installed =
    (...tools: string[]) =>
    (tool: string) =>
      tools.includes(tool) ? `/bin/${tool}` : null;

  it("an installed ruff takes the unused import, so autoflake does not run on it", () => {
    const plan = planToolFixes(input([f401, w291]), installed("ruff", "autoflake"));
    expect(plan.run.map((p) => p.fixer.name)).toEqual(["ruff"]);
    expect(missingFixerHints(plan)).toEqual([]);
  });

  it("without ruff, autoflake takes the unused import and only the trailing whitespace is said to lack a fixer", () => {
    const plan = planToolFixes(input([f401, w291]), installed("autoflake"));
    expect(plan.run.map((p) => p.fixer.name)).toEqual(["autoflake"]);
    expect(missingFixerHints(plan)).toEqual([
      "flake8 W291 trailing whitespace: ruff check --fix would fix it; it is not installed (not in the worktree's node_modules/.bin, .venv/bin or PATH).",
    ]);
  });

  it("with neither: one line names both fixers for the unused import", () => {
    const plan = planToolFixes(
      input([f401, w291, { file: "x.go", line: 3, message: '"os" imported and not used', severity: "error", source: "go" }]),
      installed(),
    );
    expect(plan.run).toEqual([]);
    expect(missingFixerHints(plan)).toEqual([
      "flake8 F401 unused import: ruff check --fix or autoflake would fix it; neither is installed (not in the worktree's node_modules/.bin, .venv/bin or PATH).",
      "flake8 W291 trailing whitespace: ruff check --fix would fix it; it is not installed (not in the worktree's node_modules/.bin, .venv/bin or PATH).",
      "go: unused or missing import: goimports -w would fix it; it is not installed (not in the worktree's node_modules/.bin, .venv/bin or PATH).",
    ]);
  });
});

describe("finding a fixer", () => {
  it("the worktree's .venv/bin before PATH; not executable or relative PATH entries do not count", () => {
    const wt = tmpDir("trm-locate-");
    const onPath = tmpDir("trm-locate-path-");
    for (const p of [path.join(wt, ".venv", "bin", "autoflake"), path.join(onPath, "autoflake"), path.join(onPath, "ruff")]) {
      mkdirSync(path.dirname(p), { recursive: true });
      writeFileSync(p, "#!/bin/sh\n");
      chmodSync(p, 0o755);
    }
    chmodSync(path.join(onPath, "ruff"), 0o644);
    expect(locateTool(wt, "autoflake", onPath)).toBe(path.join(wt, ".venv", "bin", "autoflake"));
    expect(locateTool(wt, "ruff", onPath)).toBeNull();
    expect(locateTool(tmpDir("trm-locate-"), "autoflake", `relative${path.delimiter}${onPath}`)).toBe(path.join(onPath, "autoflake"));
  });

  it("credentials are blanked for fixers", () => {
    // One rule for every command the server runs (util/secrets.ts, applied by the runner).
    const names = ["GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "NPM_API_KEY", "PATH", "HOME"];
    expect(names.filter(isSecretName)).toEqual(["GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "NPM_API_KEY"]);
  });
});

describe("a fixer's run in a scratch copy (with a stand-in tool)", () => {
  /** A repository with the given files committed, and a stand-in fixer whose command is `script`. */
  function setup(files: Record<string, string>, script: string, over: Partial<ToolFixer> = {}) {
    const wt = tmpDir("trm-toolfix-");
    for (const [rel, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(wt, rel)), { recursive: true });
      if (content.startsWith("link:")) symlinkSync(content.slice(5), path.join(wt, rel));
      else writeFileSync(path.join(wt, rel), content);
    }
    g(wt, "init", "-q");
    g(wt, "add", "-A");
    const bin = path.join(tmpDir("trm-toolbin-"), "fixer");
    writeFileSync(bin, `#!/bin/sh\n${script}\n`);
    chmodSync(bin, 0o755);
    const fixer: ToolFixer = {
      name: "gofmt",
      tool: "fixer",
      label: "stand-in fixer",
      extensions: [".go"],
      targets: () => null,
      command: ({ bin: b, files: fs }) => ({ argv: [b, ...fs.map((f) => `./${f}`)] }),
      version: () => null,
      okExit: [0],
      timeoutMs: 10_000,
      ...over,
    };
    return { wt, bin, fixer, scratchParent: tmpDir("trm-scratch-") };
  }

  it("reads back what it changed, and never writes the worktree", async () => {
    const { wt, bin, fixer, scratchParent } = setup({ "a.go": "package a\n", "b.go": "package b\n" }, 'for f in "$@"; do echo "// fixed" >> "$f"; done');
    const r = await runToolFixer(fixer, bin, { problems: [], files: ["a.go"], what: "x" }, { worktree: wt, scratchParent });
    expect(r.rewrites).toEqual([{ path: "a.go", before: "package a\n", after: "package a\n// fixed\n" }]);
    expect(readFileSync(path.join(wt, "a.go"), "utf8")).toBe("package a\n");
    expect(readdirSync(scratchParent)).toEqual([]);
  });

  it("a file reached through a link out of the repository is not handed to it; a whole-tree fixer does not run at all", async () => {
    const outside = tmpDir("trm-outside-");
    writeFileSync(path.join(outside, "x.go"), "package x\n");
    const { wt, bin, fixer, scratchParent } = setup(
      { "a.go": "package a\n", "evil.go": `link:${path.join(outside, "x.go")}`, dir: `link:${outside}` },
      'for f in "$@"; do echo "// fixed" >> "$f"; done; echo pwned >> dir/x.go',
    );
    const one = await runToolFixer(fixer, bin, { problems: [], files: ["evil.go"], what: "x" }, { worktree: wt, scratchParent });
    expect(one.notes.join()).toMatch(/evil\.go is a symbolic link to a file outside the repository: stand-in fixer was not run on it/);
    const all = await runToolFixer(fixer, bin, { problems: [], files: null, what: "x" }, { worktree: wt, scratchParent });
    expect(all.notes.join()).toMatch(/stand-in fixer was not run: .*link\(s\) to outside the repository/);
    expect(readFileSync(path.join(outside, "x.go"), "utf8")).toBe("package x\n");
    expect(readdirSync(scratchParent)).toEqual([]);
  });

  const hasBwrap = (process.env.PATH ?? "").split(":").some((d) => existsSync(path.join(d, "bwrap")));
  (hasBwrap || process.env.CI === "true" ? it : it.skip)("in a sandboxed session it runs in the sandbox: the copy is writable, nothing else", async () => {
    const outside = path.join(tmpDir("trm-outside-"), "pwned");
    const { wt, bin, fixer, scratchParent } = setup(
      { "a.go": "package a\n" },
      `for f in "$@"; do echo "// fixed" >> "$f"; done; echo pwned > ${outside} || true`,
    );
    const sandbox = { writable: [], readable: [path.dirname(bin), wt], network: false };
    const r = await runToolFixer(fixer, bin, { problems: [], files: ["a.go"], what: "x" }, { worktree: wt, scratchParent, sandbox });
    expect(r.rewrites).toEqual([{ path: "a.go", before: "package a\n", after: "package a\n// fixed\n" }]);
    expect(existsSync(outside)).toBe(false);
  });

  it("a fixer that hangs is stopped at the timeout with its children, and the copy is removed", async () => {
    const pidFile = path.join(tmpDir("trm-pid-"), "pid");
    const { wt, bin, fixer, scratchParent } = setup({ "a.go": "package a\n" }, `sleep 300 & echo $! > ${pidFile}; wait`);
    const t0 = Date.now();
    const r = await runToolFixer(fixer, bin, { problems: [], files: ["a.go"], what: "x" }, { worktree: wt, scratchParent, timeoutMs: 500 });
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(r.notes.join()).toMatch(/stand-in fixer did not finish within 1 s and was stopped/);
    const pid = Number(readFileSync(pidFile, "utf8"));
    const alive = () => {
      try {
        process.kill(pid, 0);
        return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8")); // a zombie is dead, not yet reaped
      } catch {
        return false;
      }
    };
    // Killed with the group; give the kernel a moment to reap it.
    for (let i = 0; i < 20 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive()).toBe(false);
    expect(readdirSync(scratchParent)).toEqual([]);
  });

  it("a failing fixer is reported with its message and offers nothing; credentials are not in its environment", async () => {
    process.env.TRM_TEST_API_TOKEN = "s3cret";
    try {
      const { wt, bin, fixer, scratchParent } = setup({ "a.go": "package a\n" }, 'echo "token=[$TRM_TEST_API_TOKEN]" >&2; exit 3');
      const r = await runToolFixer(fixer, bin, { problems: [], files: ["a.go"], what: "x" }, { worktree: wt, scratchParent });
      expect(r.rewrites).toEqual([]);
      expect(r.notes).toEqual(["stand-in fixer failed (exit 3): token=[]"]);
      expect(existsSync(scratchParent) && readdirSync(scratchParent)).toEqual([]);
    } finally {
      delete process.env.TRM_TEST_API_TOKEN;
    }
  });
});
