/**
 * What the review says about the project's own tools: which ran and which did not, and why, in one
 * note. The review runs ESLint and tsc; a project that lints with another tool (oxlint, Biome, xo,
 * standard) is told that its linter is not run, not that ESLint is missing. Pure.
 */

export interface DeclaredTools {
  /** The project's linter, as its configuration and devDependencies show it (undefined when none). */
  linter?: string;
  /** A type checker other than tsc the project's scripts run (tsgo, vue-tsc). */
  typeChecker?: string;
  /** The install command its lockfile or packageManager field names. */
  install: string;
}

const LINTERS: Array<{ name: string; files?: RegExp; packages: string[] }> = [
  { name: "ESLint", files: /^(?:eslint\.config\.[cm]?[jt]s|\.eslintrc(?:\.(?:js|cjs|json|ya?ml))?)$/, packages: ["eslint"] },
  { name: "oxlint", files: /^\.?oxlintrc\.json$/, packages: ["oxlint"] },
  { name: "Biome", files: /^biome\.jsonc?$/, packages: ["@biomejs/biome"] },
  { name: "xo", files: /^\.xo-config(?:\.[cm]?js|\.json)?$/, packages: ["xo"] },
  { name: "standard", packages: ["standard", "ts-standard"] },
];

/** The linter and type checker a project declares: configuration files at its root first, then its package.json. */
export function declaredTools(packageJson: string | null, rootFiles: string[]): DeclaredTools {
  let pkg: {
    devDependencies?: Record<string, unknown>;
    dependencies?: Record<string, unknown>;
    scripts?: Record<string, unknown>;
    packageManager?: unknown;
    eslintConfig?: unknown;
    xo?: unknown;
  } = {};
  try {
    pkg = JSON.parse(packageJson ?? "{}") as typeof pkg;
  } catch {
    // an unreadable package.json declares nothing
  }
  const deps = new Set([...Object.keys(pkg.devDependencies ?? {}), ...Object.keys(pkg.dependencies ?? {})]);
  const scripts = Object.values(pkg.scripts ?? {})
    .filter((s): s is string => typeof s === "string")
    .join("\n");
  const byFile = LINTERS.find((l) => l.files && rootFiles.some((f) => l.files!.test(f)));
  const byConfigKey = pkg.eslintConfig ? "ESLint" : pkg.xo ? "xo" : undefined;
  // A linter the scripts run counts before one that is merely installed (eslint-config-* beside oxlint).
  const byScript = LINTERS.find(
    (l) => l.packages.some((p) => deps.has(p)) && new RegExp(`(?:^|[\\s&|;])${l.name === "Biome" ? "biome" : l.packages[0]}\\b`, "m").test(scripts),
  );
  const byPackage = LINTERS.find((l) => l.packages.some((p) => deps.has(p)));
  const typeChecker = /(?:^|[\s&|;])tsgo\b/m.test(scripts) ? "tsgo" : /(?:^|[\s&|;])vue-tsc\b/m.test(scripts) ? "vue-tsc" : undefined;
  const pm =
    typeof pkg.packageManager === "string"
      ? pkg.packageManager.split("@")[0]
      : rootFiles.includes("pnpm-lock.yaml")
        ? "pnpm"
        : rootFiles.includes("yarn.lock")
          ? "yarn"
          : rootFiles.includes("bun.lockb") || rootFiles.includes("bun.lock")
            ? "bun"
            : "npm";
  return { linter: byFile?.name ?? byConfigKey ?? byScript?.name ?? byPackage?.name, ...(typeChecker ? { typeChecker } : {}), install: `${pm} install` };
}

export interface ToolStatus {
  ran: string[];
  /** Tool and why it did not run, e.g. "tsc (not installed)". */
  notRun: string[];
  /** Whether a tool did not run because the dependencies are not installed. */
  notInstalled: boolean;
}

/** The one note on the project's tools. */
export function toolsNote(s: ToolStatus, declared: DeclaredTools): string {
  const ran = s.ran.length > 0 ? `ran ${s.ran.join(" and ")}` : "none ran";
  const notRun = s.notRun.length > 0 ? `; not run: ${s.notRun.join("; ")}` : "";
  const install = s.notInstalled ? ` Install the project's dependencies (\`${declared.install}\`) to run them.` : "";
  return `Project tools: ${ran}${notRun}.${install}`;
}
