import type { FileContext, LineView } from "../../context.js";
import type { Finding } from "../../types.js";
import { finding, RULES } from "../catalog.js";

/**
 * Hard-coded secrets (CWE-798), in every text file: a key committed to a test or a YAML file leaks
 * just the same. Tokens with a recognisable prefix are reported anywhere; generic `password = "..."`
 * assignments are reported in source and configuration, not in tests or docs where example values
 * are the norm. Messages never repeat the secret.
 */

interface TokenPattern {
  re: RegExp;
  what: string;
  /** Returns false for documented example or placeholder values. */
  real?: (m: RegExpExecArray) => boolean;
}

const notExample = (m: RegExpExecArray): boolean => !/EXAMPLE/i.test(m[0]) && !/^(.)\1+$/.test((m[1] ?? m[0]).slice(4));

const TOKENS: TokenPattern[] = [
  { re: /-----BEGIN (?:(?:RSA|EC|DSA|OPENSSH|PGP|ENCRYPTED) )?PRIVATE KEY(?: BLOCK)?-----/, what: "A private key block" },
  { re: /(?<![A-Z0-9])((?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|AIPA)[A-Z0-9]{16})(?![A-Z0-9])/, what: "An AWS access key id", real: notExample },
  {
    re: /aws_?secret_?access_?key["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/i,
    what: "An AWS secret access key",
    real: (m) => !/EXAMPLE/i.test(m[1]!),
  },
  { re: /(?<![A-Za-z0-9_])(gh[pousr]_[A-Za-z0-9]{36,255})(?![A-Za-z0-9_])/, what: "A GitHub token" },
  { re: /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{22,}/, what: "A GitHub fine-grained token" },
  { re: /(?<![A-Za-z0-9])xox[abprs]-[A-Za-z0-9-]{10,}/, what: "A Slack token" },
  { re: /(?<![A-Za-z0-9])(?:sk|rk)_live_[A-Za-z0-9]{20,}/, what: "A Stripe live key" },
  { re: /(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/, what: "A Google API key" },
  { re: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/, what: "An npm token" },
  { re: /(?<![A-Za-z0-9_-])sk-(?:proj-|ant-(?:api\d\d-)?)?[A-Za-z0-9_-]{32,}/, what: "An API secret key (sk-…)" },
];

/** Keys whose value is a credential. The key must END with one of these words. */
const SECRET_KEY = /(?:password|passwd|passphrase|pwd|secret|secret_?key|api_?key|apikey|access_?token|auth_?token|private_?key|client_?secret|token)$/i;
const PASSWORD_KEY = /(?:password|passwd|passphrase|pwd)$/i;
const PLACEHOLDER =
  /^(?:\*+|x+|\.+|-+|_+|<.*>|\{\{.*\}\}|\$\{.*\}|\$\(.*\)|\$[A-Za-z_]\w*|%\(?\w*\)?s|%s|changeme|change[_-]?me|change[_-]?this|password|passw0rd|secret|your[_-]?.*|my[_-]?(?:password|secret|token|key).*|example.*|dummy.*|test.*|fake.*|sample.*|placeholder.*|redacted|null|none|nil|undefined|todo|tbd|xxx.*|process\.env.*|env\(.*\)|os\.environ.*)$/i;

/** `key = "value"`, `key: "value"`, `"key": "value"`, `key := "value"`, `key => 'value'`. */
const ASSIGN = /([A-Za-z_$][\w$.-]*)["']?\s*(?::=|=>|(?<![=!<>])=(?!=)|:)\s*(["'`])((?:\\.|(?!\2).)*)\2/g;
const ENV_LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/;

function looksSecret(key: string, value: string): boolean {
  const v = value.trim();
  if (v === "" || /\s/.test(v) || PLACEHOLDER.test(v)) return false;
  if (/^[A-Z][A-Z0-9_]*$/.test(v)) return false; // the NAME of an environment variable
  if (/^(?:https?:)?\/\//.test(v) || v.startsWith("/")) return false; // a URL or route, not a credential
  if (PASSWORD_KEY.test(key)) return v.length >= 6;
  // Tokens and keys are long and mix letters with digits; "bearer" or "db-credentials" are labels.
  return v.length >= 16 && /[A-Za-z]/.test(v) && /\d/.test(v);
}

function genericAssignment(ctx: FileContext, l: LineView): string | null {
  if (ctx.kind.isEnv) {
    const m = ENV_LINE.exec(l.raw);
    if (m && SECRET_KEY.test(m[1]!)) {
      const value = m[2]!.replace(/\s+#.*$/, "").replace(/^(["'])(.*)\1$/, "$2");
      if (looksSecret(m[1]!, value)) return m[1]!;
    }
    return null;
  }
  ASSIGN.lastIndex = 0;
  for (let m = ASSIGN.exec(l.raw); m; m = ASSIGN.exec(l.raw)) {
    const key = m[1]!.split(".").pop()!;
    // The key must be code (or a JSON/YAML key), not words inside a comment.
    if (l.comment[m.index] !== undefined && l.comment[m.index] !== " ") continue;
    if (m[2] === "`" && m[3]!.includes("${")) continue;
    if (SECRET_KEY.test(key) && looksSecret(key, m[3]!)) return key;
  }
  return null;
}

export function secrets(ctx: FileContext): Finding[] {
  const out: Finding[] = [];
  // Translation catalogs map `password` to the word for it ("Passwort"): labels, not credentials.
  const isI18n = /(^|\/)(locales?|i18n|l10n|translations?|lang)\//i.test(ctx.file.path) || /\.(po|pot|xliff|xlf|strings|resx)$/i.test(ctx.file.path);
  const generic = !ctx.kind.isTest && !ctx.kind.isDoc && !ctx.kind.isGenerated && !isI18n;
  for (const l of ctx.addedLines) {
    let what: string | null = null;
    for (const t of TOKENS) {
      const m = t.re.exec(l.raw);
      if (m && (!t.real || t.real(m))) {
        what = t.what;
        break;
      }
    }
    if (!what && generic) {
      const key = genericAssignment(ctx, l);
      if (key) what = `A hard-coded credential (\`${key}\`)`;
    }
    if (what) {
      out.push(
        finding(RULES.secret, l.line, `${what} is committed in the source: anyone with read access to the repository (and its history) can use it.`, {
          suggestion: "Remove it, rotate it now (it stays in git history), and load it from the environment or a secret manager.",
        }),
      );
    }
  }
  return out;
}
