/**
 * The number a bench command reports. A JSON object with a numeric `value` wins (the whole output, or
 * the last line that is one), because it is unambiguous; otherwise the last number printed, since
 * bench scripts log progress first and print their result last.
 */
import { cleanText, isRecord, tryJson } from "./util.js";

// A number: thousands separators (1,234.5), decimals, exponent. It must not continue a word, so digits
// in identifiers and versions ("sha256", "x86_64", "v20.1.3") are not taken for the metric; a minus
// sign counts only at the start or after a space, bracket, "=" or ":".
// Lookbehinds are fixed-width, so the pattern stays linear.
const NUMBER_RE = /(?<![\w.])(?:(?<=^|[\s([{=:])-)?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\d])|(?<![\w.])\.\d+(?:[eE][-+]?\d+)?/g;

function jsonValue(s: string): number | null {
  const v = tryJson(s);
  if (!isRecord(v)) return null;
  const n = v.value;
  return typeof n === "number" && Number.isFinite(n) ? n : null;
}

export function parseBenchValue(text: string): number | null {
  const clean = cleanText(text);
  const whole = clean.trim();
  if (whole.startsWith("{") && whole.endsWith("}") && whole.includes('"value"')) {
    const v = jsonValue(whole);
    if (v !== null) return v;
  }
  // One pass from the end: the first JSON line with a value wins; remember the last number line
  // seen on the way in case there is none.
  let lastNumber: number | null = null;
  const firstValueAt = clean.indexOf('"value"');
  let end = clean.length;
  while (end > 0) {
    const start = clean.lastIndexOf("\n", end - 1);
    const line = clean.slice(start + 1, end).trim();
    end = Math.max(0, start);
    if (line === "") continue;
    if (line.startsWith("{") && line.endsWith("}") && line.includes('"value"')) {
      const v = jsonValue(line);
      if (v !== null) return v;
    }
    if (lastNumber === null && /\d/.test(line)) {
      const matches = line.match(NUMBER_RE);
      if (matches && matches.length > 0) {
        const n = Number(matches[matches.length - 1]!.replace(/,/g, ""));
        if (Number.isFinite(n)) lastNumber = n;
      }
    }
    // Once a number is known, only a JSON line could still beat it; lines without "value" cannot.
    if (lastNumber !== null && (firstValueAt < 0 || firstValueAt >= end)) break;
  }
  return lastNumber;
}
