import { parseUnittest } from "../parsers/tests/unittest.js";
import type { RunnerDescriptor } from "./types.js";

export const unittest: RunnerDescriptor = {
  id: "unittest",
  name: "unittest",
  command: "python -m unittest -v",
  recognise: { command: /\bunittest\b/ },
  parse: { text: [parseUnittest] },
  formats: "unittest (default and -v)",
  namesTests: "-v",
  readableReport: "unittest: add -v",
  // Chosen by the command's arguments (generic setup.cfg / tox.ini / Makefile are in the generic list).
  testConfigFiles: [],
  // Names are dotted paths (`tests.test_calc.CalcTest.test_mul`), which `python -m unittest` takes as arguments;
  // a subtest's (`… [msg] (i=3)`) is its test's, which unittest would try to import as a module.
  selectByName: (names) => [...new Set(names.map((n) => n.split(" ", 1)[0]!))],
  // The module before the TestCase class (`tests.test_calc` of `tests.test_calc.CalcTest.test_mul`; a module that
  // did not import is named alone).
  testFileOf: (name) => {
    const segs = name.split(" ", 1)[0]!.split(".");
    const cls = segs.findIndex((s) => /^[A-Z]/.test(s));
    const mod = cls < 0 ? segs : segs.slice(0, cls);
    return mod.length > 0 && mod.every((s) => /^\w+$/.test(s)) ? `${mod.join("/")}.py` : undefined;
  },
  // `discover` takes options, not names.
  selectAt: { not: /\bdiscover\b/ },
};
