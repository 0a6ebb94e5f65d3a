/**
 * Credentials in the server's environment. The session's commands run code nobody reviewed, so they
 * do not get them unless the session names them (passEnv); and every value the server knows is
 * replaced by a marker in anything kept (outputs, feedback, notes, commit messages) before it is kept.
 *
 * Redaction is a second line only: it catches the value as printed, split across output chunks, or
 * interleaved with colour codes, but not a transformed value (reversed, hashed, encrypted, one
 * character per line). Not handing the value to the command at all is the real protection.
 */

/** Names that look like credentials: *_TOKEN, *_SECRET, *_PASSWORD, *_API_KEY, AWS_*, *_CREDENTIALS, ... */
const SECRET_NAME_RE =
  /^(GH_TOKEN|GITHUB_TOKEN|NPM_TOKEN|NODE_AUTH_TOKEN|AWS_.*|AZURE_.*_(SECRET|KEY|PASSWORD)|.*(TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?|API_?KEY|ACCESS_KEY|PRIVATE_KEY|AUTH|_KEY|_PAT))$/i;

/** Names that match the pattern above but hold no credential and are needed by ordinary tools. */
const NOT_SECRET = new Set([
  "SSH_AUTH_SOCK",
  "GPG_AGENT_INFO",
  "XAUTHORITY",
  "KEY",
  "TRM_SESSION_ID",
  // AWS settings that hold no credential (a CA bundle path, a region): tools need them, and their values
  // would be redacted from ordinary output.
  "AWS_CA_BUNDLE",
  "AWS_REGION",
  "AWS_DEFAULT_REGION",
  "AWS_PROFILE",
  "AWS_CONFIG_FILE",
]);

export function isSecretName(name: string): boolean {
  return !NOT_SECRET.has(name.toUpperCase()) && SECRET_NAME_RE.test(name);
}

/** Shorter values are not redacted: "true", "1234" or a path fragment would mask ordinary output. */
export const MIN_SECRET_CHARS = 8;
export const REDACTED = "[redacted]";

/**
 * The credentials the process started with, moved out of `process.env` (holdCredentials) so that no
 * child inherits them by default; readers ask serverEnv() or heldCredential() instead.
 */
const held = new Map<string, string>();

/**
 * Moves every credential-named variable of `env` into the in-memory store and deletes it from `env`.
 * Idempotent; returns the names and values moved by this call.
 */
export function holdCredentials(env: NodeJS.ProcessEnv = process.env): Map<string, string> {
  const moved = new Map<string, string>();
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined || !isSecretName(k)) continue;
    held.set(k, v);
    moved.set(k, v);
    delete env[k];
  }
  return moved;
}

/** A held credential's value (or one still in process.env, when nothing was held: library use). */
export function heldCredential(name: string): string | undefined {
  return held.get(name) ?? process.env[name];
}

/** The held credentials (name, value). */
export function heldCredentials(): Map<string, string> {
  return new Map(held);
}

/** Credentials found outside the environment (a token in a remote URL of a repository's config). */
const found = new Set<string>();

/**
 * The credentials in a URL's user part: `https://user:TOKEN@host` gives TOKEN, `https://TOKEN@host`
 * gives TOKEN (a token alone stands where a user name would). Each is then redacted like the others.
 */
export function holdUrlCredentials(text: string): void {
  for (const m of text.matchAll(/\b[a-z][a-z0-9+.-]*:\/\/([^/@\s]+)@/gi)) {
    const info = m[1]!;
    const i = info.indexOf(":");
    const value = decodeURIComponentSafe(i >= 0 ? info.slice(i + 1) : info);
    if (value.length >= MIN_SECRET_CHARS) found.add(value);
  }
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The server's environment as it started: process.env plus the held credentials. For reading only. */
export function serverEnv(): Record<string, string | undefined> {
  return held.size === 0 ? process.env : { ...process.env, ...Object.fromEntries(held) };
}

/** Every credential value of an environment (default: the server's, held ones included), longest first. */
export function secretValues(env: Record<string, string | undefined> = serverEnv()): string[] {
  const out = new Set<string>();
  const values = Object.entries(env).flatMap(([k, v]) => (v === undefined || !isSecretName(k) ? [] : [v]));
  for (const v of [...values, ...found]) {
    const t = v.trim();
    if (t.length < MIN_SECRET_CHARS) continue;
    out.add(t);
    // The same value as a JSON string and base64 of it alone (`echo -n $T | base64`, HTTP basic auth).
    const json = JSON.stringify(t).slice(1, -1);
    if (json !== t) out.add(json);
    out.add(Buffer.from(t).toString("base64").replace(/=+$/, ""));
  }
  return [...out].sort((a, b) => b.length - a.length);
}

/** Replaces every known secret value in `text` (linear in text length per secret). */
export function redact(text: string, secrets: readonly string[] = secretValues()): string {
  for (const s of secrets) if (text.includes(s)) text = text.split(s).join(REDACTED);
  return text;
}

/** Redacts every string inside a JSON-like value (records kept in notes). */
export function redactDeep<T>(value: T, secrets: readonly string[] = secretValues()): T {
  if (secrets.length === 0) return value;
  // A secret that spans JSON syntax would break the parse: that throws rather than storing it.
  return JSON.parse(
    redact(
      JSON.stringify(value),
      secrets.map((s) => JSON.stringify(s).slice(1, -1)),
    ),
  ) as T;
}

/**
 * Redacts a stream whose chunks may split a secret: the last characters that could begin one are held
 * back until the next chunk (or the end).
 */
export class StreamRedactor {
  private carry = "";
  private readonly keep: number;
  constructor(private readonly secrets: readonly string[]) {
    this.keep = secrets.reduce((m, s) => Math.max(m, s.length), 0) - 1;
  }
  push(chunk: string): string {
    if (this.secrets.length === 0) return chunk;
    const text = redact(this.carry + chunk, this.secrets);
    const cut = Math.max(0, text.length - this.keep);
    this.carry = text.slice(cut);
    return text.slice(0, cut);
  }
  end(): string {
    const rest = redact(this.carry, this.secrets);
    this.carry = "";
    return rest;
  }
}
