import path from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "./repo.js";

/**
 * Node options for a child process of a unit test that imports src/ (a `.ts` file named by its `.js`
 * path, as the sources import each other): `node ...TS_IMPORT --input-type=module -e <script>`. Unit
 * tests then need no build.
 */
const hooks = pathToFileURL(path.join(ROOT, "test", "helpers", "ts-hooks.mjs")).href;
export const TS_IMPORT = ["--import", `data:text/javascript,import{register}from"node:module";register(${JSON.stringify(hooks)})`];

/** The file URL of a module of src/ by its path below src/ with a `.js` ending, for a child's `import`. */
export const srcModule = (rel: string): string => pathToFileURL(path.join(ROOT, "src", rel)).href;
