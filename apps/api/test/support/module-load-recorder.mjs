// Loaded with `node --import` into a service process under test: appends the URL of every module the
// process resolves (ES modules and CommonJS alike) to the file named by MODULE_LOAD_RECORD, one per line.
import { appendFileSync } from "node:fs";
import { registerHooks } from "node:module";

const record = process.env.MODULE_LOAD_RECORD;
if (record !== undefined)
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      appendFileSync(record, `${resolved.url}\n`);
      return resolved;
    },
  });
