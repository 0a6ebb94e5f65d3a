import { describe, expect, it } from "vitest";
import { GitError } from "../../../src/git/cli.js";
import { fail } from "../../../src/mcp/respond.js";
import { UserError } from "../../../src/util/errors.js";
import { explainSystemError } from "../../../src/util/sys-errors.js";

const errno = (code: string, p: string) => Object.assign(new Error(`${code}: failed, open '${p}'`), { code, path: p });

describe("system errors with a known cause", () => {
  it("names a read-only repository and says how to proceed", () => {
    for (const e of [
      errno("EROFS", "/r/.git/trm/run/x.owner"),
      new GitError(["update-ref"], 128, "fatal: cannot lock ref 'refs/heads/trm/x': Unable to create '/r/.git/refs/heads/trm/x.lock': Read-only file system"),
    ]) {
      const u = explainSystemError(e)!;
      expect(u.message).toMatch(/cannot write.*read-only file system/);
      expect(u.hint).toMatch(/writable clone/);
    }
    expect(explainSystemError(errno("EACCES", "/r/.git/objects"))!.message).toMatch(/permission is denied/);
  });

  it("names ENAMETOOLONG, and a ref named trm in the way, with the fix", () => {
    expect(explainSystemError(errno("ENAMETOOLONG", `/r/${"x".repeat(300)}`))!.message).toMatch(/too long for the file system \(ENAMETOOLONG\)/);
    const t = explainSystemError(
      new GitError(["update-ref"], 128, "fatal: cannot lock ref 'refs/tags/trm/1/baseline': 'refs/tags/trm' exists; cannot create 'refs/tags/trm/1/baseline'"),
    )!;
    expect(t.message).toContain("Your tag `trm`");
    expect(t.hint).toContain("git tag <new-name> trm && git tag -d trm");
  });

  it("keeps an error that says its cause already, even when it quotes a command's EROFS or EACCES", () => {
    // A setupCmd (npm install) failing in the sandbox: its output said EROFS, and the reply blamed the repository.
    const setup = new UserError(
      "setupCmd failed (exit 1), so the session was not started and nothing of it was kept: npm install\n  npm error EROFS: read-only file system, open '/r/node_modules/.package-lock.json'\n  Permission denied",
      "Fix the command.",
    );
    expect(explainSystemError(setup)).toBeNull();
    const text = (fail(setup).content[0] as { text: string }).text;
    expect(text).toMatch(/^setupCmd failed \(exit 1\)/);
    expect(text).toContain("npm error EROFS");
    expect(text).not.toContain("code-trm cannot write");
  });

  it("leaves other errors unexpected", () => {
    expect(explainSystemError(new Error("something else"))).toBeNull();
    expect(explainSystemError("text")).toBeNull();
  });
});
