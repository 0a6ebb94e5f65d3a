import path from "node:path";
import type * as TS from "typescript";
import type { TsModule } from "./ts-load.js";

/** Beyond this many files, the service's roots are the files with errors (plus declarations), not the whole project. */
export const MAX_ROOT_FILES = 3000;

/**
 * One tsconfig's program behind a language service that only ever reads the worktree. Files can be
 * overlaid in memory to check what a fix would leave, without writing anything.
 */
export class TsProject {
  readonly ls: TS.LanguageService;
  readonly rootNames: string[];
  readonly limited: boolean;
  private readonly disk = new Map<string, string | undefined>();
  private readonly overlay = new Map<string, string>();
  private readonly versions = new Map<string, number>();

  constructor(
    readonly ts: TsModule,
    readonly configPath: string,
    readonly parsed: TS.ParsedCommandLine,
    readonly worktree: string,
    focus: string[],
    deadline: number,
    maxRootFiles = MAX_ROOT_FILES,
  ) {
    const all = parsed.fileNames.map((f) => path.resolve(f));
    this.limited = all.length > maxRootFiles;
    // Auto-import fixes search the program's files for the missing export, so the whole project is
    // loaded when it is of a reasonable size; a huge one gets the files with errors, what they import,
    // and its declaration files (ambient types change what is an error).
    const roots = this.limited ? [...all.filter((f) => f.endsWith(".d.ts")), ...focus] : [...all];
    for (const f of focus) if (!roots.includes(f)) roots.push(f);
    this.rootNames = [...new Set(roots)];
    const sys = ts.sys;
    const host: TS.LanguageServiceHost = {
      getCompilationSettings: () => parsed.options,
      getScriptFileNames: () => this.rootNames,
      getProjectReferences: () => parsed.projectReferences,
      getScriptVersion: (f) => String(this.versions.get(path.resolve(f)) ?? 0),
      getScriptSnapshot: (f) => {
        const text = this.read(f);
        return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
      },
      getCurrentDirectory: () => path.dirname(configPath),
      getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
      fileExists: (f) => this.overlay.has(path.resolve(f)) || sys.fileExists(f),
      readFile: (f) => this.read(f),
      readDirectory: sys.readDirectory,
      directoryExists: sys.directoryExists,
      getDirectories: sys.getDirectories,
      realpath: sys.realpath,
      useCaseSensitiveFileNames: () => sys.useCaseSensitiveFileNames,
      // The service checks this while type checking: past the deadline it throws, so a huge
      // project cannot hold the server's only thread for long.
      getCancellationToken: () => ({ isCancellationRequested: () => Date.now() > deadline }),
    };
    this.ls = ts.createLanguageService(host, ts.createDocumentRegistry(sys.useCaseSensitiveFileNames, path.dirname(configPath)));
  }

  /** Current text of a file: the overlay when one is set, else the file on disk (read once). */
  read(f: string): string | undefined {
    const abs = path.resolve(f);
    const o = this.overlay.get(abs);
    if (o !== undefined) return o;
    if (!this.disk.has(abs)) this.disk.set(abs, this.ts.sys.readFile(abs));
    return this.disk.get(abs);
  }

  sourceFile(abs: string): TS.SourceFile | undefined {
    return this.ls.getProgram()?.getSourceFile(abs);
  }

  /** Errors of one file, as the compiler would report them. */
  errors(abs: string): TS.Diagnostic[] {
    return [...this.ls.getSyntacticDiagnostics(abs), ...this.ls.getSemanticDiagnostics(abs)].filter((d) => d.category === this.ts.DiagnosticCategory.Error);
  }

  /** Runs `fn` with files replaced in memory, then restores them. */
  withOverlay<T>(files: Map<string, string>, fn: () => T): T {
    const bump = (abs: string) => this.versions.set(abs, (this.versions.get(abs) ?? 0) + 1);
    for (const [f, text] of files) {
      const abs = path.resolve(f);
      this.overlay.set(abs, text);
      bump(abs);
    }
    try {
      return fn();
    } finally {
      for (const f of files.keys()) {
        const abs = path.resolve(f);
        this.overlay.delete(abs);
        bump(abs);
      }
    }
  }

  dispose(): void {
    this.ls.dispose();
  }
}

/** True for the exception the language service throws when its cancellation token fires. */
export function isCancellation(ts: TsModule, err: unknown): boolean {
  return err instanceof ts.OperationCanceledException || (err as Error | null)?.name === "OperationCanceledException";
}
