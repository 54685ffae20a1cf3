// Checks that every rule citation in the tree resolves: "docs/api-rules.md §N" (also §§N–M and §§N, M)
// must name a section heading of docs/api-rules.md, and nothing may cite the API contract the repository
// does not contain ("API-CONTRACT.md", "contract §N"). Runs in the root lint task (./run lint, ./run test).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const RULES = "docs/api-rules.md";
const TEXT = /\.(ts|mts|mjs|js|md|ya?ml|json)$/;
// Generated files (their text comes from files checked themselves), and this file (it names the spellings).
const SKIPPED = new Set([
  "docs/openapi.json",
  "packages/client/src/openapi-types.ts",
  "pnpm-lock.yaml",
  "scripts/check-doc-citations.mjs",
]);

const sections = new Set(
  [...readFileSync(join(root, RULES), "utf8").matchAll(/^#{2,3} §(\d+)\b/gm)].map((match) => Number(match[1])),
);
const citation = /docs\/api-rules\.md`?\)? (§§?[\d–, -]*\d)/g;
const foreign = /API-CONTRACT|\b[Cc]ontract §/g;

/** The section numbers a citation names: §3, §§8–10, §§4, 10, §§6, 7, 9. */
const numbersOf = (cited) => {
  const numbers = [];
  for (const part of cited.replace(/^§§?/, "").split(",")) {
    const [from, to] = part.split(/[–-]/).map((n) => Number(n.trim()));
    for (let n = from; n <= (to ?? from); n++) numbers.push(n);
  }
  return numbers;
};

const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
  cwd: root,
  encoding: "utf8",
})
  .split("\n")
  .filter((file) => TEXT.test(file) && !SKIPPED.has(file));
const problems = [];
for (const file of files) {
  let text;
  try {
    text = readFileSync(join(root, file), "utf8");
  } catch {
    continue; // deleted in the working tree
  }
  const lines = text.split("\n");
  lines.forEach((line, index) => {
    for (const match of line.matchAll(foreign))
      problems.push(`${file}:${index + 1}: cites "${match[0]}"; cite ${RULES} §N instead`);
    for (const match of line.matchAll(citation))
      for (const n of numbersOf(match[1]))
        if (!sections.has(n)) problems.push(`${file}:${index + 1}: ${RULES} has no §${n}`);
  });
}
if (problems.length > 0) {
  process.stderr.write(`${problems.join("\n")}\n`);
  process.exit(1);
}
process.stdout.write(`citations: ${files.length} files, every citation of ${RULES} names a section\n`);
