import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// The ```ts snippets of packages/domain/README.md, in order, are one module: it must typecheck and run (its
// assertions are the README's promises).

const readme = readFileSync(new URL("../../domain/README.md", import.meta.url), "utf8");
const snippets = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? "");
const moduleUrl = new URL("./readme-snippets.generated.ts", import.meta.url);

describe("packages/domain/README.md", () => {
  it("has the snippets it promises: install aside, setup, errors, effect and wire decoding", () => {
    expect(snippets.length).toBe(4);
    writeFileSync(moduleUrl, `// Generated from packages/domain/README.md by readme.test.ts.\n${snippets.join("\n")}`);
  });

  // A whole program check: slow on a busy machine.
  it("its snippets typecheck", { timeout: 120_000 }, () => {
    const base = ts.readConfigFile(
      fileURLToPath(new URL("../../../tsconfig.base.json", import.meta.url)),
      ts.sys.readFile,
    );
    const { options } = ts.parseJsonConfigFileContent(
      base.config,
      ts.sys,
      fileURLToPath(new URL(".", import.meta.url)),
    );
    const program = ts.createProgram([fileURLToPath(moduleUrl)], {
      ...options,
      noEmit: true,
      composite: false,
      incremental: false,
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(problems).toEqual([]);
  });

  it("its snippets run", async () => {
    await import(/* @vite-ignore */ moduleUrl.href);
  });
});
