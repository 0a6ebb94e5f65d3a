/** The node_modules layer a workspace repository's worktree gets (workspaces.ts), on real folders. */
import { lstatSync, mkdirSync, mkdtempSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { layersIntact, layerWorkspaces, snapshotLayers } from "../../../src/session/workspaces.js";

let tmp: string;
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

function write(root: string, files: Record<string, string>): void {
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
    writeFileSync(path.join(root, p), c);
  }
}

/** A checkout and its worktree (inside .git, as code-trm makes it) with the same tracked files. */
function setup(files: Record<string, string>): { top: string; wt: string } {
  tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), "trm-ws-")));
  const top = path.join(tmp, "repo");
  const wt = path.join(top, ".git/trm/worktrees/s1");
  write(top, files);
  write(wt, files);
  return { top, wt };
}

const real = (p: string) => realpathSync(p);

describe("layerWorkspaces", () => {
  it("links workspace packages to the worktree, everything else to the checkout; scopes mixed; .bin relative", async () => {
    const { top, wt } = setup({
      "package.json": JSON.stringify({ workspaces: ["packages/*"] }),
      "packages/a/package.json": JSON.stringify({ name: "a" }),
      "packages/a/cli.js": "",
      "packages/s/package.json": JSON.stringify({ name: "@x/s" }),
    });
    write(top, { "node_modules/lodash/index.js": "", "node_modules/@x/installed/index.js": "", "node_modules/.package-lock.json": "{}" });
    symlinkSync("../packages/a", path.join(top, "node_modules/a"));
    symlinkSync("../../packages/s", path.join(top, "node_modules/@x/s"));
    mkdirSync(path.join(top, "node_modules/.bin"));
    symlinkSync("../a/cli.js", path.join(top, "node_modules/.bin/a-cli"));
    symlinkSync("../lodash/index.js", path.join(top, "node_modules/.bin/lo"));

    const r = await layerWorkspaces(top, wt);
    expect(r.layers).toEqual(["node_modules"]);
    expect(r.redirected.sort()).toEqual(["node_modules/@x/s -> packages/s", "node_modules/a -> packages/a"]);
    const nm = path.join(wt, "node_modules");
    expect(lstatSync(nm).isDirectory()).toBe(true);
    expect(real(path.join(nm, "a"))).toBe(path.join(wt, "packages/a"));
    expect(real(path.join(nm, "@x/s"))).toBe(path.join(wt, "packages/s"));
    expect(real(path.join(nm, "@x/installed"))).toBe(path.join(top, "node_modules/@x/installed"));
    expect(real(path.join(nm, "lodash"))).toBe(path.join(top, "node_modules/lodash"));
    expect(readlinkSync(path.join(nm, ".bin/a-cli"))).toBe("../a/cli.js");
    expect(real(path.join(nm, ".bin/a-cli"))).toBe(path.join(wt, "packages/a/cli.js"));
    expect(real(path.join(nm, ".bin/lo"))).toBe(path.join(top, "node_modules/lodash/index.js"));
  });

  it("layers a package's own node_modules too (pnpm links workspace deps there), and replaces a linkPaths link", async () => {
    const { top, wt } = setup({
      "package.json": JSON.stringify({ name: "root" }),
      "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n",
      "packages/a/package.json": JSON.stringify({ name: "a" }),
      "packages/b/package.json": JSON.stringify({ name: "b" }),
    });
    write(top, { "node_modules/.pnpm/lock.yaml": "", "packages/b/node_modules/dep/index.js": "" });
    symlinkSync("../../a", path.join(top, "packages/b/node_modules/a"));
    // linkPaths: ["node_modules"] made the root one a link to the checkout's.
    symlinkSync(path.join(top, "node_modules"), path.join(wt, "node_modules"));
    const r = await layerWorkspaces(top, wt);
    expect(r.layers.sort()).toEqual(["node_modules", "packages/b/node_modules"]);
    expect(lstatSync(path.join(wt, "node_modules")).isDirectory()).toBe(true);
    expect(real(path.join(wt, "node_modules/.pnpm"))).toBe(path.join(top, "node_modules/.pnpm"));
    expect(real(path.join(wt, "packages/b/node_modules/a"))).toBe(path.join(wt, "packages/a"));
    expect(real(path.join(wt, "packages/b/node_modules/dep"))).toBe(path.join(top, "packages/b/node_modules/dep"));
  });

  it("gives a repository without workspaces a root layer of links, without the tools' caches", async () => {
    const { top, wt } = setup({ "package.json": JSON.stringify({ name: "plain" }) });
    write(top, { "node_modules/x/index.js": "", "node_modules/.vite-temp/old.mjs": "", "node_modules/.cache/babel/x": "", "node_modules/.vite/deps/y.js": "" });
    mkdirSync(path.join(top, "node_modules/.bin"));
    symlinkSync("../x/index.js", path.join(top, "node_modules/.bin/x"));
    expect(await layerWorkspaces(top, wt)).toEqual({ layers: ["node_modules"], redirected: [] });
    expect(lstatSync(path.join(wt, "node_modules")).isDirectory()).toBe(true);
    expect(real(path.join(wt, "node_modules/x/index.js"))).toBe(path.join(top, "node_modules/x/index.js"));
    expect(real(path.join(wt, "node_modules/.bin/x"))).toBe(path.join(top, "node_modules/x/index.js"));
    // A tool's cache is written in the worktree's own layer, never in the checkout's node_modules.
    for (const c of [".vite-temp", ".cache", ".vite"]) expect(lstatSync(path.join(wt, "node_modules", c), { throwIfNoEntry: false })).toBeUndefined();
  });

  it("leaves a worktree with its own install alone", async () => {
    const again = setup({ "package.json": JSON.stringify({ workspaces: ["packages/*"] }), "packages/a/package.json": "{}" });
    write(again.top, { "node_modules/x/index.js": "" });
    write(again.wt, { "node_modules/y/index.js": "" });
    expect(await layerWorkspaces(again.top, again.wt)).toEqual({ layers: [], redirected: [] });
  });
});

describe("layersIntact", () => {
  /** A plain layer of two links and its snapshot. */
  async function made() {
    const { top, wt } = setup({ "package.json": "{}" });
    write(top, { "node_modules/a/index.js": "", "node_modules/b/index.js": "" });
    const { layers } = await layerWorkspaces(top, wt);
    expect(layers).toEqual(["node_modules"]);
    return { top, nm: path.join(wt, "node_modules"), snap: snapshotLayers(wt, layers) };
  }

  it("holds while nothing changed, and after a tool made its cache beside the links", async () => {
    const { nm, snap } = await made();
    expect(layersIntact(snap)).toBe(true);
    mkdirSync(path.join(nm, ".vite", "vitest"), { recursive: true });
    expect(layersIntact(snap)).toBe(true);
    expect(layersIntact(snap)).toBe(true);
  });

  for (const [what, change] of [
    [
      "a link replaced by a folder of forged code",
      (nm: string) => {
        rmSync(path.join(nm, "a"));
        write(nm, { "a/index.js": "forged" });
      },
    ],
    [
      "a link pointed elsewhere",
      (nm: string, top: string) => {
        rmSync(path.join(nm, "a"));
        symlinkSync(path.join(top, "node_modules", "b"), path.join(nm, "a"));
      },
    ],
    ["a package added", (nm: string) => write(nm, { "c/index.js": "" })],
    ["a link removed", (nm: string) => rmSync(path.join(nm, "b"))],
    ["the layer removed", (nm: string) => rmSync(nm, { recursive: true })],
  ] as const) {
    it(`fails on ${what}`, async () => {
      const { top, nm, snap } = await made();
      change(nm, top);
      expect(layersIntact(snap)).toBe(false);
    });
  }
});
