import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type CorpusRepo, cloneMirror, findingKey, hasMirror, mirrorOf, reviewCommit } from "../../helpers/real-corpus.js";

/**
 * Precision on real commits (fixtures/review-real/judged.json). Two parts:
 * - always (CI): the recorded judgements give precision = (right + acceptable) / all >= 80%;
 * - where the fetched mirrors exist (/work/.mirror/<owner>+<name>/repo, or TRM_MIRRORS): every
 *   commit is reviewed again and any finding that is not in the judged list fails (it has not been
 *   judged, so precision is unknown), and the precision of what is found now must stay >= 80%.
 *   Without the mirror the repository is skipped with a message: their code is never committed.
 *   The rerun takes minutes (45 reviews), so it also needs TRM_REAL_CORPUS=1.
 */

const FILE = path.resolve(import.meta.dirname, "../../../fixtures/review-real/judged.json");
const corpus = JSON.parse(readFileSync(FILE, "utf8")) as { repos: CorpusRepo[] };
const RERUN = process.env.TRM_REAL_CORPUS === "1";
const ok = (v: string): boolean => v === "right" || v === "acceptable";

describe("real-commit corpus", () => {
  it("is large enough and its judged findings are at least 80% right or acceptable", () => {
    const commits = corpus.repos.flatMap((r) => r.commits);
    const findings = commits.flatMap((c) => c.findings);
    expect(corpus.repos.length).toBeGreaterThanOrEqual(3);
    expect(commits.length).toBeGreaterThanOrEqual(40);
    for (const f of findings) expect(f.reason.length).toBeGreaterThan(10);
    const precision = findings.filter((f) => ok(f.verdict)).length / findings.length;
    console.log(`real corpus (recorded): ${commits.length} commits, ${findings.length} findings, precision ${(precision * 100).toFixed(1)}%`);
    expect(precision).toBeGreaterThanOrEqual(0.8);
  });

  for (const repo of corpus.repos) {
    it.skipIf(!RERUN || !hasMirror(repo.repo))(
      `${repo.repo}: a fresh review finds nothing that was not judged (needs ${mirrorOf(repo.repo)})`,
      async () => {
        const clone = cloneMirror(repo.repo);
        try {
          const unjudged: string[] = [];
          const verdicts: string[] = [];
          for (const c of repo.commits) {
            const judged = new Map(c.findings.map((f) => [findingKey(f), f.verdict]));
            for (const f of await reviewCommit(clone.dir, c.sha)) {
              const v = judged.get(findingKey(f));
              if (v === undefined) unjudged.push(`${c.sha.slice(0, 10)} ${findingKey(f)} ${f.message}`);
              else verdicts.push(v);
            }
          }
          const precision = verdicts.length ? verdicts.filter(ok).length / verdicts.length : 1;
          console.log(
            `real corpus (rerun) ${repo.repo}: ${repo.commits.length} commits, ${verdicts.length} findings, precision ${(precision * 100).toFixed(1)}%`,
          );
          expect(unjudged).toEqual([]);
          expect(precision).toBeGreaterThanOrEqual(0.8);
        } finally {
          clone.cleanup();
        }
      },
      600_000,
    );
  }
  if (!RERUN || corpus.repos.some((r) => !hasMirror(r.repo))) {
    it("says why the rerun was skipped", () => {
      const missing = corpus.repos.filter((r) => !hasMirror(r.repo)).map((r) => r.repo);
      console.log(
        `real corpus rerun skipped: ${!RERUN ? "set TRM_REAL_CORPUS=1" : ""}${!RERUN && missing.length ? "; " : ""}${missing.length ? `no mirror of ${missing.join(", ")} (fetch them with the search tool's fetch; they land in ${path.dirname(path.dirname(mirrorOf("a/b")))})` : ""}.`,
      );
    });
  }
});
