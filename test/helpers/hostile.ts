/** Shared by the hostile and sandbox-escape e2e tests: canary credentials, a watched home, a hostile server. */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, expect } from "vitest";
import { startServer, textOf } from "./client.js";
import { g, makeRepo, ROOT, tmpDir } from "./repo.js";

export type Any = Record<string, any>;
export const BIN = path.join(ROOT, "dist", "cli", "main.js");
export const CANARY = "ghp_canary7Qx2LmN0pRsTuVwXyZ0123456789";
export const SECRETS: Record<string, string> = {
  GITHUB_TOKEN: CANARY,
  GH_TOKEN: `${CANARY}_gh`,
  NPM_TOKEN: `${CANARY}_npm`,
  AWS_SECRET_ACCESS_KEY: `${CANARY}_aws`,
  OPENAI_API_KEY: `${CANARY}_openai`,
  DEPLOY_TOKEN: `${CANARY}_deploy`,
};
const temps: string[] = [];
export const tmp = (prefix: string) => {
  const d = tmpDir(prefix);
  temps.push(d);
  return d;
};
afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

export function repoOf(): string {
  const repo = makeRepo("js-stats");
  temps.push(path.dirname(repo));
  return repo;
}

/** A fake home with an SSH key (the thing an attacker wants) and an outside folder, both watched. */
export function outsideWorld() {
  const home = tmp("trm-home-");
  mkdirSync(path.join(home, ".ssh"));
  writeFileSync(path.join(home, ".ssh", "id_ed25519"), `-----BEGIN OPENSSH PRIVATE KEY-----\n${CANARY}_ssh\n`);
  const outside = tmp("trm-outside-");
  writeFileSync(path.join(outside, "keep.txt"), "outside\n");
  const snap = () => [home, outside].map((d) => listing(d)).join("\n");
  return { home, outside, snap };
}

export function listing(dir: string, rel = ""): string {
  return readdirSync(path.join(dir, rel))
    .sort()
    .map((n) => {
      const r = path.join(rel, n);
      const st = statSync(path.join(dir, r));
      return st.isDirectory() ? `${r}/\n${listing(dir, r)}` : `${r} ${st.size} ${readFileSync(path.join(dir, r), "utf8")}`;
    })
    .join("\n");
}

/** A server whose environment holds the canaries; every tool answer is kept to be searched. */
export async function hostileServer(opts: { stateDir?: string; home: string; path?: string }) {
  const srv = await startServer({ stateDir: opts.stateDir, env: { ...SECRETS, HOME: opts.home, ...(opts.path ? { PATH: opts.path } : {}) } });
  const seen: string[] = [];
  const raw = async (name: string, args: Any) => {
    const r = await srv.raw(name, args);
    seen.push(JSON.stringify(r));
    return r;
  };
  const call = async (name: string, args: Any): Promise<Any> => {
    const r = await raw(name, args);
    if (r.isError) throw new Error(`${name} failed: ${textOf(r)}`);
    return r.structuredContent as Any;
  };
  return { srv, seen, raw, call };
}

export function expectNoCanary(repo: string, seen: string[]) {
  const leaks = (s: string) => s.includes("canary7Qx2LmN0pRsTuVwXyZ");
  expect(seen.filter(leaks)).toEqual([]);
  expect(leaks(g(repo, "log", "--all", "-p", "--notes=*"))).toBe(false);
  const objects = execFileSync("git", ["cat-file", "--batch-all-objects", "--batch"], { cwd: repo, maxBuffer: 256 * 1024 * 1024 }).toString("latin1");
  expect(leaks(objects)).toBe(false);
}

export async function until(cond: () => boolean, ms = 20_000): Promise<void> {
  for (const end = Date.now() + ms; !cond(); ) {
    if (Date.now() > end) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}
