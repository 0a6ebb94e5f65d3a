import { git } from "../git/cli.js";
import { readNote } from "../git/session-git.js";
import type { StepNote } from "./record.js";
import type { Session } from "./session.js";

/** `refs/trm/<id>/alternatives/<step>/<k>`: candidate k of the best-of-N batch that made step `step`. */
export function alternativeRef(s: Session, step: number, k: number): string {
  return `${s.refs.keepPrefix}alternatives/${step}/${k}`;
}

export interface Alternative {
  /** The point name: `<step>.<k>`. */
  at: string;
  step: number;
  k: number;
  commit: string;
  parent: string | null;
  note: StepNote | null;
}

/** Every candidate kept by a batch, in step then k order, with its record; read from git alone. */
export async function listAlternatives(s: Session): Promise<Alternative[]> {
  const prefix = `${s.refs.keepPrefix}alternatives/`;
  const out = await git(s.config.commonDir, ["for-each-ref", "--format=%(refname)%00%(objectname)%00%(parent)", prefix]);
  const list: Alternative[] = [];
  for (const line of out.split("\n").filter(Boolean)) {
    const [ref, commit, parents] = line.split("\0") as [string, string, string];
    const m = /^(\d+)\/(\d+)$/.exec(ref.slice(prefix.length));
    if (!m) continue;
    const step = Number(m[1]);
    const k = Number(m[2]);
    const note = await readNote<StepNote>(s.config.commonDir, s.refs.notes, commit);
    list.push({ at: `${step}.${k}`, step, k, commit, parent: parents.split(" ")[0] || null, note: note?.kind === "step" ? note : null });
  }
  return list.sort((a, b) => a.step - b.step || a.k - b.k);
}
