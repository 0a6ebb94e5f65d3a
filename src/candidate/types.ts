import { UserError } from "../util/errors.js";

/** One change to the worktree, computed before anything is written (so a candidate applies all-or-nothing). */
export type FileOp = { op: "write"; path: string; content: Buffer; create: boolean } | { op: "delete"; path: string };

/** Read access to the state a candidate applies to. `read` returns null when the file does not exist. */
export interface TreeReader {
  read(path: string): Promise<Buffer | null>;
  /**
   * The text of the symbolic link the path itself names (to a folder, to nothing, anywhere), or null when
   * it names no link: a delete removes the link, never what it points at.
   */
  linkText?(path: string): Promise<string | null>;
}

/** The text of the link `rel` names itself, or null (also for a reader that knows no links). */
export const linkTextOf = async (tree: TreeReader, rel: string): Promise<string | null> => (tree.linkText ? tree.linkText(rel) : null);

/** Why one part of a candidate could not be applied, precise enough for the model to resend it right. */
export interface CandidateIssue {
  file?: string;
  /** 1-based index of the hunk or edit within its file, when the issue is about one. */
  hunk?: number;
  message: string;
  expected?: string[];
  closest?: { line: number; text: string[]; score: number };
  hint?: string;
}

export interface Plan {
  ops: FileOp[];
  warnings: string[];
  /** Fuzz used to place hunks (moved, whitespace-tolerant); empty when every hunk applied exactly. */
  fuzz: string[];
}

export class CandidateError extends UserError {
  constructor(readonly issues: CandidateIssue[]) {
    super(
      `Candidate does not apply: ${issues.map((i) => (i.file ? `${i.file}: ` : "") + i.message).join("; ")}`,
      issues.find((i) => i.hint)?.hint ?? "Fix the listed parts and resend; nothing was changed.",
      { issues },
    );
    this.name = "CandidateError";
  }
}

/** A bounded before/after view of one changed region, with a few lines of context. */
export interface PreviewExcerpt {
  /** 1-based line in the file before the change where `before` starts (in the new file for added files). */
  startLine: number;
  before: string[];
  after: string[];
}

export interface PreviewFile {
  path: string;
  status: "added" | "modified" | "deleted";
  linesAdded: number;
  linesRemoved: number;
  excerpts: PreviewExcerpt[];
}

/** What a candidate would change, computed from a plan without writing anything. */
export interface Preview {
  filesAffected: string[];
  linesAdded: number;
  linesRemoved: number;
  files: PreviewFile[];
}
