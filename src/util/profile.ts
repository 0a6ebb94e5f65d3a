/**
 * CODE_TRM_PROFILE=1 prints where one operation's time went on stderr: the marks set along its path as
 * `label: phase +ms ...` when it ends. Off by default, and then each call is one boolean test.
 * Operations of one server are timed one at a time (the last begun owns the marks): for profiling a
 * single client, not for concurrent sessions.
 */
const ON = process.env.CODE_TRM_PROFILE === "1";
let label = "";
let marks: [string, number][] = [];

export function profileBegin(name: string): void {
  if (!ON) return;
  label = name;
  marks = [["", performance.now()]];
}

export function profileMark(phase: string): void {
  if (ON && marks.length > 0) marks.push([phase, performance.now()]);
}

export function profileEnd(phase = "end"): void {
  if (!ON || marks.length === 0) return;
  profileMark(phase);
  const parts = marks.slice(1).map(([p, t], i) => `${p} ${(t - marks[i]![1]).toFixed(1)}`);
  process.stderr.write(`profile ${label}: total ${(marks[marks.length - 1]![1] - marks[0]![1]).toFixed(1)} | ${parts.join(" | ")}\n`);
  marks = [];
}
