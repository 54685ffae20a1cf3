import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const srcDir = join(packageDir, "src");

const DENIED = [
  /^koa$/,
  /^@koa\//,
  /^express$/,
  /^fastify$/,
  /^hono$/,
  /^@mikro-orm\//,
  /^pg$/,
  /^postgres$/,
  /^@electric-sql\//,
  /^mysql2$/,
  /^redis$/,
  /^ioredis$/,
  /^knex$/,
  /^kysely$/,
  /^typeorm$/,
  /^prisma$/,
  /^@prisma\//,
];

const ALLOWED_SPECIFIER = (specifier: string): boolean =>
  specifier.startsWith("./") ||
  specifier.startsWith("../") ||
  specifier.startsWith("node:") ||
  specifier === "effect" ||
  specifier.startsWith("effect/") ||
  specifier === "ajv" ||
  specifier.startsWith("ajv/") ||
  // RE2 in pure JavaScript: the linear-time engine for tenant-written regexes.
  specifier === "re2js" ||
  // Text diffs (jsdiff): the unified form of a server revision diff (docs/api-rules.md §21).
  specifier === "diff";

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : /\.(ts|mts|cts|js|mjs)$/.test(entry.name)
        ? [join(dir, entry.name)]
        : [],
  );

/** Module specifiers of static imports, re-exports, side-effect imports and dynamic imports. */
const specifiersOf = (source: string): Array<string> => {
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?[^'";]*?\bfrom\s*["']([^"']+)["']/g,
    // A side-effect import starts a statement; the word before a quote elsewhere (`decode("import", ...)`) is not one.
    /(?:^|[;{}])\s*import\s*["']([^"']+)["']/gm,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
    /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g,
  ];
  return patterns.flatMap((pattern) => Array.from(source.matchAll(pattern), (m) => m[1] ?? ""));
};

describe("dependency purity", () => {
  it("declares no web framework, ORM or driver among its dependencies", () => {
    const pkg = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
    };
    const names = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})];
    expect(names).toContain("effect");
    for (const name of names) for (const denied of DENIED) expect(name, `${name} is not allowed`).not.toMatch(denied);
  });

  it("the import scanner sees every form of import (self-check)", () => {
    const sample = [
      'import { a } from "koa";',
      'import type { B } from "@mikro-orm/core";',
      "export * from 'pg';",
      'export { c } from "./local.js";',
      'import "reflect-metadata";',
      'const d = await import("express");',
      'import {\n  e,\n  f,\n} from "hono";',
    ].join("\n");
    expect(specifiersOf(sample).sort()).toEqual(
      ["koa", "@mikro-orm/core", "pg", "./local.js", "reflect-metadata", "express", "hono"].sort(),
    );
    expect(specifiersOf(sample).filter((s) => !ALLOWED_SPECIFIER(s))).toHaveLength(6);
  });

  it("imports only effect, ajv, node: builtins and relative modules from src", () => {
    const files = sourceFiles(srcDir);
    expect(files.length).toBeGreaterThan(10);
    const offending: Array<string> = [];
    for (const file of files)
      for (const specifier of specifiersOf(readFileSync(file, "utf8")))
        if (!ALLOWED_SPECIFIER(specifier)) offending.push(`${relative(packageDir, file)}: ${specifier}`);
    expect(offending).toEqual([]);
  });
});
