/**
 * The test runners code-trm reads, one descriptor each (types.ts says what a descriptor holds). The
 * order is the order their text parsers are tried (most specific summary line first; each parser
 * returns null unless its own summary is present, so it matters only for an output holding two
 * runners' output) and the order their commands are recognised in.
 */

import { matchesAnyGlob } from "../../util/glob.js";
import { ava } from "./ava.js";
import { bun } from "./bun.js";
import { cargo } from "./cargo.js";
import { go } from "./go.js";
import { jasmine } from "./jasmine.js";
import { jest } from "./jest.js";
import { mocha } from "./mocha.js";
import { node } from "./node.js";
import { pytest } from "./pytest.js";
import { tap } from "./tap.js";
import { tape } from "./tape.js";
import type { RunnerDescriptor, TestParser } from "./types.js";
import { unittest } from "./unittest.js";
import { uvu } from "./uvu.js";
import { vitest } from "./vitest.js";

export type { ExpectedFailureMark, RunnerDescriptor, TestParser } from "./types.js";

export const RUNNERS: readonly RunnerDescriptor[] = [pytest, unittest, go, cargo, jest, vitest, node, mocha, tap, tape, ava, uvu, jasmine, bun];

const unique = <T>(xs: T[]): T[] => [...new Set(xs)];

/** The parsers of every runner, in the order parseTests tries them. */
export const STRUCTURED_PARSERS: TestParser[] = unique(RUNNERS.flatMap((r) => r.parse.structured ?? []));
export const TEXT_PARSERS: TestParser[] = unique([...RUNNERS.flatMap((r) => r.parse.text ?? []), ...RUNNERS.flatMap((r) => r.parse.last ?? [])]);

/** The outputs of one runner code-trm reads, as the could-not-read note and the README's table name them. */
export const formatsOf = (r: RunnerDescriptor): string =>
  [...(r.formats ? [r.formats] : []), ...(r.tap ? [`TAP (${r.tap})`] : []), ...(r.junit ? [`JUnit XML (${r.junit})`] : [])].join("; ");

/** The runner a command (or the script it runs) names, first in list order. */
export const runnerOfCommand = (text: string): RunnerDescriptor | undefined => RUNNERS.find((r) => r.recognise.command.test(text));

/**
 * Files that choose which tests run and how, whatever the runner: package.json's scripts, a task
 * runner's file, coverage tools wrapping the runner, and the config of runners code-trm does not read
 * but a suite may use beside one it reads (karma, playwright, cypress, wdio).
 */
export const GENERIC_TEST_CONFIG = [
  "package.json",
  "Makefile",
  "justfile",
  "noxfile.py",
  ".c8rc",
  ".c8rc.json",
  ".nycrc",
  ".nycrc.*",
  "karma.conf.*",
  "playwright.config.*",
  "cypress.config.*",
  "cypress.json",
  "wdio.conf.*",
];

/** Every name that chooses tests: the generic ones and every runner's. */
export const TEST_CONFIG_FILES: string[] = unique([...GENERIC_TEST_CONFIG, ...RUNNERS.flatMap((r) => r.testConfigFiles)]);

/** Whether a file (by its base name) chooses which tests run. */
export const isTestConfigFile = (file: string): boolean => matchesAnyGlob(file.split("/").pop() ?? "", TEST_CONFIG_FILES) !== undefined;
