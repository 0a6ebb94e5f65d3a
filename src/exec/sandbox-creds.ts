import path from "node:path";
import { isInside } from "../util/paths.js";
import { heldCredential } from "../util/secrets.js";
import { includedFiles, statOrNull } from "./sandbox-git.js";

/**
 * Credentials a sandboxed command must not read (sandbox.ts): the files of the home that hold them, and
 * those the server's environment names wherever they are.
 */

/** Credentials that may sit inside a re-exposed folder of the home (a user's sandboxPaths of `~/.config`, say): hidden. */
export const CREDENTIALS = [
  ".ssh",
  ".aws",
  ".gnupg",
  ".config/gh",
  ".docker",
  ".kube",
  ".azure",
  ".config/gcloud",
  ".netrc",
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  ".pypirc",
  ".git-credentials",
  ".cargo/credentials.toml",
  ".cargo/credentials",
  ".config/git/credentials",
  ".config/github-copilot",
  ".vault-token",
  ".pgpass",
  ".my.cnf",
  ".config/hub",
  ".terraform.d/credentials.tfrc.json",
  ".m2/settings.xml",
  ".gradle/gradle.properties",
];

/**
 * Variables that point a program at a configuration or a credential outside the sandbox's home: git's
 * global and system config (a URL with a token, a credential helper, `[include]`s), the folder of
 * `~/.config` (git's config and credentials, gh's token), npm's user config, the files and folders of
 * cloud and container credentials. What each names is hidden, and the variable unset: in the sandbox
 * the tools read the private home's.
 */
const FILE_VARS = [
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_SYSTEM",
  "GIT_CONFIG",
  "NPM_CONFIG_USERCONFIG",
  "npm_config_userconfig",
  "NETRC",
  "AWS_SHARED_CREDENTIALS_FILE",
  "AWS_CONFIG_FILE",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "KUBECONFIG",
  "PGPASSFILE",
  "TF_CLI_CONFIG_FILE",
  "REGISTRY_AUTH_FILE",
];
const DIR_VARS = ["GH_CONFIG_DIR", "DOCKER_CONFIG", "CLOUDSDK_CONFIG", "AZURE_CONFIG_DIR", "GNUPGHOME"];

/**
 * Folders a tool keeps its credentials in beside what the commands need of it (cargo's registry and
 * programs, gradle's caches), moved out of the home by a variable (the rust image's
 * CARGO_HOME=/usr/local/cargo): the credentials are hidden, the variable and the rest stay.
 */
const TOOL_HOMES: Record<string, string[]> = { CARGO_HOME: ["credentials.toml", "credentials"], GRADLE_USER_HOME: ["gradle.properties"] };

/** What XDG_CONFIG_HOME holds of CREDENTIALS (their `.config/` entries), and git's config there. */
const IN_CONFIG_HOME = [...CREDENTIALS.filter((c) => c.startsWith(".config/")).map((c) => c.slice(".config/".length)), "git/config"];

/** The variables a sandboxed command does not get (they name what is hidden). */
export const NAMING_VARS = [...FILE_VARS, ...DIR_VARS, "XDG_CONFIG_HOME"];

/**
 * The existing files and folders the server's environment names as configuration or credentials
 * (FILE_VARS, DIR_VARS), with what git's configs among them include; not what a variable the session
 * passes by name (passEnv) names. A credential-named variable (GOOGLE_APPLICATION_CREDENTIALS, AWS_*) is
 * out of process.env already: its value is the held one.
 */
export function namedCredentials(home: string, passed: readonly string[] = []): string[] {
  const value = (v: string) => (passed.includes(v) ? undefined : (process.env[v] ?? heldCredential(v)));
  const out = new Set<string>();
  const add = (p: string) => {
    if (path.isAbsolute(p) && statOrNull(p)) out.add(path.normalize(p));
  };
  for (const v of FILE_VARS) for (const p of (value(v) ?? "").split(v === "KUBECONFIG" ? path.delimiter : "\0")) add(p);
  for (const v of DIR_VARS) add(value(v) ?? "");
  for (const [v, files] of Object.entries(TOOL_HOMES)) for (const f of files) if (value(v)) add(path.join(value(v)!, f));
  // XDG_CONFIG_HOME is a folder of configurations: only what it holds of credentials, and git's config.
  const xdg = value("XDG_CONFIG_HOME");
  if (xdg && path.isAbsolute(xdg) && !isInside(home, xdg)) for (const rel of IN_CONFIG_HOME) add(path.join(xdg, rel));
  for (const v of ["GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG"]) {
    const cfg = value(v);
    if (cfg && path.isAbsolute(cfg) && statOrNull(cfg)?.isFile()) for (const inc of includedFiles(cfg, home)) add(inc);
  }
  if (xdg && path.isAbsolute(xdg)) for (const inc of includedFiles(path.join(xdg, "git", "config"), home)) add(inc);
  return [...out];
}
