/**
 * What every process code-trm starts inherits, git's own calls (git/cli.ts) and the session's commands
 * (run.ts) alike: inherited GIT_DIR / GIT_INDEX_FILE (e.g. when the server is started from a hook) would
 * redirect git into the user's repository state.
 */
const REDIRECTING_VARS = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_COMMON_DIR",
  "GIT_NAMESPACE",
  "GIT_PREFIX",
  "GIT_CONFIG_PARAMETERS",
  "GIT_CONFIG_COUNT",
  "GIT_EDITOR",
  "GIT_SEQUENCE_EDITOR",
];

/** The environment for git and for the session's own commands: no variable that points git elsewhere. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || REDIRECTING_VARS.includes(k) || /^GIT_CONFIG_(KEY|VALUE)_\d+$/.test(k)) continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}
