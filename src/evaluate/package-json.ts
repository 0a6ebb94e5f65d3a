/**
 * package.json read as data (the repository's, so possibly hostile): its scripts that are text, in an
 * object without a prototype (a script that runs `npm run constructor` names no script, not Object's
 * constructor), and the packages it depends on. One reading for the runner hint, failing first and
 * command detection.
 */

const obj = (o: unknown) => (o && typeof o === "object" && !Array.isArray(o) ? (o as Record<string, unknown>) : {});

export interface PackageJson {
  /** The parsed object, for fields only one reader needs. */
  json: Record<string, unknown>;
  scripts: Record<string, string>;
  /** The names in dependencies and devDependencies. */
  deps: Set<string>;
}

/** package.json's fields, or undefined when the text is not a JSON object. */
export function parsePackageJson(text: string): PackageJson | undefined {
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!j || typeof j !== "object") return undefined;
  const json = j as Record<string, unknown>;
  const scripts = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(obj(json.scripts))) if (typeof v === "string" && v.trim() !== "") scripts[k] = v;
  return { json, scripts, deps: new Set([...Object.keys(obj(json.dependencies)), ...Object.keys(obj(json.devDependencies))]) };
}

/** The scripts that are text (none when package.json is not a JSON object). */
export function scriptsOf(text: string): Record<string, string> {
  return parsePackageJson(text)?.scripts ?? (Object.create(null) as Record<string, string>);
}
