/**
 * Internal model of a change under review. Every input (a PR from GitHub, a unified diff, files, a
 * local range) is reduced to this shape, so the rules never know where the change came from.
 */

export const CATEGORIES = ["type-safety", "logging", "todos", "code-quality", "error-handling", "security", "testing", "size"] as const;
export type Category = (typeof CATEGORIES)[number];

export type Severity = "critical" | "warning" | "info";

export type FileStatus = "added" | "modified" | "deleted" | "renamed" | "copied";

/** One file of the change. Line numbers are 1-based NEW-file line numbers. */
export interface FileChange {
  path: string;
  /** Previous path when renamed or copied. */
  oldPath?: string;
  status: FileStatus;
  binary: boolean;
  linesAdded: number;
  linesRemoved: number;
  /** Lines of the new file that are known (added or context), by new-file line number. */
  known: Map<number, string>;
  /** New-file line numbers of the added lines, ascending. */
  added: number[];
  /** The whole new file, when the source provides it (files, local range, PR contents): rules then parse it. */
  content?: string;
}

/** What the reviewed project says about itself (read from its configuration at the head). */
export interface ProjectInfo {
  /** Line-length limit the project sets (.editorconfig, prettier, eslint max-len); none = no long-line rule. */
  maxLineLength?: number;
  /** Subject of the head commit or PR title: a `fix` lowers the missing-tests threshold. */
  title?: string;
  /** package.json depends on Express 5, which forwards async handlers' rejections. */
  express5?: boolean;
  /** Rule ids the project's own linter switched off (see contents.ts). */
  off?: string[];
  /** Paths .gitattributes marks linguist-generated (generated.ts). */
  generated?: string[];
  /** Top folders package.json publishes (files, main, types, exports): declaration files there are build output. */
  publishedFolders?: string[];
}

/** A finding of a rule, before it is attached to a file. */
export interface Finding {
  line: number;
  rule: string;
  severity: Severity;
  category: Category;
  message: string;
  suggestion?: string;
  cwe?: string;
}

/** A review comment as returned to the client. */
export interface ReviewComment {
  file: string;
  line: number;
  severity: Severity;
  category: Category;
  rule: string;
  message: string;
  suggestion?: string;
  cwe?: string;
}
