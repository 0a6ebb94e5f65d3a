import type { FileContext, LineView } from "../../context.js";
import { blocksOf } from "../../structure.js";
import type { Finding } from "../../types.js";
import { finding, RULES } from "../catalog.js";
import { matchInCode, matchOutsideComments, offsetOf } from "./util.js";

/**
 * Weak cryptography (CWE-327), predictable randomness for secrets (CWE-338) and disabled TLS
 * certificate checks (CWE-295). Patterns are matched on raw text (algorithm names live in strings)
 * but must start in code, so a comment that mentions md5 is not a finding.
 */

const NON_SECURITY_PURPOSE = /etag|cache|checksum|fingerprint|dedup/i;

function weakHash(ctx: FileContext, l: LineView): Finding | null {
  const patterns: RegExp[] = ctx.kind.isJsLike
    ? [/\bcreateHash\s*\(\s*["'`](md5|md4|sha1|sha-1)["'`]/i, /\bcreateHmac\s*\(\s*["'`](md5)["'`]/i]
    : ctx.kind.syntax === "python"
      ? [/\bhashlib\s*\.\s*(md5|sha1)\s*\((?![^)]*usedforsecurity\s*=\s*False)/, /\bhashlib\s*\.\s*new\s*\(\s*["'](md5|sha1)["']/i]
      : ctx.kind.syntax === "c"
        ? [/\bMessageDigest\s*\.\s*getInstance\s*\(\s*"(MD5|SHA-?1)"/i, /\b(md5|sha1)\s*\.\s*(?:New|Sum)\s*\(/]
        : [];
  for (const re of patterns) {
    const m = matchInCode(l, re);
    if (m && !NON_SECURITY_PURPOSE.test(l.raw)) {
      const algo = m[1]!.toUpperCase().replace("SHA-1", "SHA1");
      return finding(
        RULES.weakHash,
        l.line,
        `${algo} is broken for security use: collisions are practical, so it cannot protect passwords, signatures or integrity.`,
        {
          suggestion:
            "Use SHA-256 or better; for passwords use a slow KDF (scrypt, argon2, bcrypt). If this hash is not security-relevant, say so in a comment.",
        },
      );
    }
  }
  return null;
}

function weakCipher(ctx: FileContext, l: LineView): Finding | null {
  if (ctx.kind.isJsLike) {
    if (matchInCode(l, /\bcreateDecipher\s*\(|\bcreateCipher\s*\(/)) {
      return finding(RULES.weakCipher, l.line, "crypto.createCipher/createDecipher derive the key with MD5 and no salt and use no IV (removed in Node 22).", {
        suggestion: "Use createCipheriv with a random IV and an authenticated mode such as aes-256-gcm.",
      });
    }
    const m = matchInCode(l, /\bcreateCipheriv\s*\(\s*["'`]([\w-]+)["'`]/);
    if (m && /^(des|des-ede|des-ede3|des3|rc2|rc4|bf|blowfish)(-|$)|-ecb$/i.test(m[1]!)) {
      return finding(RULES.weakCipher, l.line, `Cipher ${m[1]} is broken or leaks patterns (ECB).`, {
        suggestion: "Use aes-256-gcm (or chacha20-poly1305) with a random IV.",
      });
    }
  } else if (ctx.kind.syntax === "c") {
    const m = matchInCode(l, /\bCipher\s*\.\s*getInstance\s*\(\s*"((?:DES|DESede|RC4|RC2|Blowfish)[^"]*|AES\/ECB[^"]*|AES)"/);
    if (m)
      return finding(RULES.weakCipher, l.line, `Cipher ${m[1]} is broken or leaks patterns (ECB).`, {
        suggestion: 'Use "AES/GCM/NoPadding" with a random IV.',
      });
  }
  return null;
}

const SECURITY_NAME = /token|secret|passw|nonce|salt|otp|csrf|xsrf|session_?id|sessionid|api_?key|apikey|credential|auth/i;

function insecureRandom(ctx: FileContext, l: LineView): Finding | null {
  if (!ctx.kind.isJsLike) return null;
  const m = /\bMath\s*\.\s*random\s*\(/.exec(l.code);
  if (!m) return null;
  // The purpose is in the names: of the variable or property on this line, or of the enclosing function.
  const identifiers = l.code.replace(/\bMath\s*\.\s*random\b/g, "");
  let named = SECURITY_NAME.test(identifiers);
  if (!named) {
    const off = offsetOf(l, m.index);
    const fns = blocksOf(ctx).filter((b) => b.kind === "function" && b.segment === l.segment && b.open < off && (b.close === null || b.close > off));
    const inner = fns[fns.length - 1];
    named = inner?.name !== undefined && SECURITY_NAME.test(inner.name);
  }
  if (!named) return null;
  return finding(
    RULES.insecureRandom,
    l.line,
    "Math.random() is predictable: values derived from it can be guessed, so it must not make tokens, ids or secrets.",
    {
      suggestion: "Use crypto.randomBytes / crypto.randomUUID (Node) or crypto.getRandomValues (browser).",
    },
  );
}

function tlsDisabled(ctx: FileContext, l: LineView): Finding | null {
  const checks: Array<[RegExp, string, "code" | "text"]> = [
    [/\brejectUnauthorized\s*:\s*false\b/, "rejectUnauthorized: false", "code"],
    [/\bNODE_TLS_REJECT_UNAUTHORIZED\b["'\]]*\s*[:=]\s*["']?0\b/, "NODE_TLS_REJECT_UNAUTHORIZED=0", "text"],
    [/\bstrictSSL\s*:\s*false\b/, "strictSSL: false", "code"],
    [/\bInsecureSkipVerify\s*:\s*true\b/, "InsecureSkipVerify: true", "code"],
    [/\bhttp\.sslVerify\s*=?\s*false\b/i, "http.sslVerify=false", "text"],
  ];
  if (ctx.kind.syntax === "python") checks.push([/\bverify\s*=\s*False\b/, "verify=False", "code"]);
  if (ctx.kind.syntax === "hash") checks.push([/\bcurl\b.*\s(?:-k|--insecure)(?=\s|$)/, "curl --insecure", "code"]);
  const isSource = ctx.kind.syntax === "js" || ctx.kind.syntax === "c" || ctx.kind.syntax === "python";
  for (const [re, what, where] of checks) {
    const m = where === "code" && ctx.kind.syntax !== "none" ? matchInCode(l, re) : matchOutsideComments(l, re);
    if (m && where === "text" && isSource && l.code[m.index] !== l.raw[m.index]) {
      // In source code these settings are only real where they are set: as an environment key
      // (`process.env["NODE_TLS_..."] = "0"`) or in a git command line; a message that names them is not.
      const before = l.raw.slice(0, m.index);
      const lit = l.segment.masked.strings.find((x) => x.start < offsetOf(l, m.index) && offsetOf(l, m.index) < x.end);
      if (!/(?:env|environ)\s*\[\s*["'`]$/.test(before) && !(lit && /\bgit\b/.test(lit.value))) continue;
    }
    if (m) {
      return finding(
        RULES.tlsDisabled,
        l.line,
        `${what} turns off TLS certificate verification: anyone on the network path can impersonate the server and read or alter the traffic.`,
        {
          suggestion: "Keep verification on; for a private CA, pass its certificate (`ca` option / NODE_EXTRA_CA_CERTS / REQUESTS_CA_BUNDLE).",
        },
      );
    }
  }
  return null;
}

export function crypto(ctx: FileContext): Finding[] {
  if (ctx.kind.isTest || ctx.kind.isGenerated || ctx.kind.isDoc) return [];
  const out: Finding[] = [];
  for (const l of ctx.addedLines) {
    for (const check of [weakHash, weakCipher, insecureRandom, tlsDisabled]) {
      const f = check(ctx, l);
      if (f) out.push(f);
    }
  }
  return out;
}
