import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { UserError } from "../util/errors.js";

/** How a session's commands are confined (bubblewrap). */
export interface Sandbox {
  /** Directories the command may write: the worktree. Everything else is read-only. */
  writable: string[];
  /** Directories re-exposed read-only over the private /tmp (the user's checkout when it lives in /tmp). */
  readable: string[];
  network: boolean;
}

export const INSTALL_BWRAP = "apt-get update && apt-get install -y bubblewrap (Debian/Ubuntu; dnf install bubblewrap on Fedora)";

/** Credentials in the home directory: hidden in the sandbox (read-only would still let a test read them). */
const HIDDEN_IN_HOME = [".ssh", ".aws", ".gnupg", ".config/gh", ".docker", ".kube", ".azure", ".config/gcloud", ".netrc", ".npmrc", ".pypirc", ".git-credentials", ".cargo/credentials.toml", ".config/git/credentials", ".vault-token", ".pgpass", ".my.cnf", ".config/hub", ".terraform.d/credentials.tfrc.json", ".m2/settings.xml", ".gradle/gradle.properties", ".bash_history", ".zsh_history", ".python_history", ".node_repl_history", ".psql_history", ".mysql_history"];

let probed: string | null | undefined;

/** The path of a working bwrap, or an actionable error: no silent fallback to running unconfined. */
export function assertSandboxAvailable(): string {
  if (probed === undefined) {
    const bin = (process.env.PATH ?? "").split(path.delimiter).map((d) => path.join(d, "bwrap")).find((p) => existsSync(p));
    if (!bin) probed = null;
    else {
      try {
        execFileSync(bin, ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--unshare-net", "--die-with-parent", "true"], { stdio: ["ignore", "ignore", "pipe"], timeout: 10_000 });
        probed = bin;
      } catch (err) {
        const why = String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).trim().split("\n")[0];
        throw new UserError(`sandbox: bubblewrap is installed but cannot create a sandbox here (${why}).`, "Allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1) or start without sandbox.");
      }
    }
  }
  if (!probed) throw new UserError("sandbox: true needs bubblewrap (bwrap), which is not installed.", `Install it: ${INSTALL_BWRAP}; or start without sandbox.`);
  return probed;
}

/**
 * The bwrap command line around `shell -c cmd`: the whole filesystem read-only, a private /tmp, the
 * worktree writable, credentials in the home directory hidden, a private pid namespace that dies with
 * the command (nothing it starts survives it), and no network unless asked.
 */
export function sandboxArgv(bin: string, sb: Sandbox, shell: string, cmd: string): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  for (const r of sb.readable) args.push("--ro-bind", r, r);
  const home = os.homedir();
  for (const rel of HIDDEN_IN_HOME) {
    const p = path.join(home, rel);
    const st = (() => {
      try {
        return statSync(p);
      } catch {
        return null;
      }
    })();
    if (!st) continue;
    if (st.isDirectory()) args.push("--tmpfs", p);
    else args.push("--ro-bind", "/dev/null", p);
  }
  for (const w of sb.writable) {
    args.push("--bind", w, w);
    // The worktree's `.git` file tells the server's own git calls where the repository is: a command that
    // rewrote it could point them at a config of its own (a filter.*.smudge runs outside the sandbox).
    const pointer = path.join(w, ".git");
    if (existsSync(pointer)) args.push("--ro-bind", pointer, pointer);
  }
  // Unix sockets are reachable through a read-only mount (a user bus, docker, an ssh or gpg agent): hide
  // the runtime folders and the variables that name them.
  for (const dir of ["/run", "/var/run", process.env.XDG_RUNTIME_DIR]) {
    if (dir && isRealDir(dir)) args.push("--tmpfs", dir);
  }
  for (const v of ["SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "GPG_AGENT_INFO", "DOCKER_HOST"]) args.push("--unsetenv", v);
  args.push("--unshare-pid", "--die-with-parent", "--new-session");
  if (!sb.network) args.push("--unshare-net");
  args.push("--chdir", sb.writable[0] ?? "/", "--", shell, "-c", cmd);
  return [bin, ...args];
}

/** A directory that is not a link (`/var/run` is often a link to `/run`, which is hidden already). */
function isRealDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}
