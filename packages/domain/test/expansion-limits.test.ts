import { Either } from "effect";
import { describe, expect, it } from "vitest";
import {
  MAX_PROMPT_SUBSTITUTIONS,
  MAX_RENDERED_PROMPT_CHARS,
  MAX_RESOLVED_HEADER_CHARS,
  MAX_UPSTREAM_PATH_CHARS,
  planUpstreamRequest,
  renderPrompt,
  resolveHeaderTemplates,
} from "../src/public/mcp.js";
import type { PromptRow } from "../src/public/storage.js";
import { testToolRow } from "../src/public/testing.js";

// Stored content expanded with caller input (issue 10, F2): every expansion is measured before it is built,
// and refused past its limit. The amplification of each attack is written next to it.

const prompt = (texts: ReadonlyArray<string>): PromptRow => ({
  id: "AAAAAAAAAAA",
  providerId: "BBBBBBBBBBB",
  createdAt: new Date(0),
  updatedAt: new Date(0),
  name: "amplifier",
  description: "",
  arguments: [{ name: "a", description: "", required: true }],
  messages: texts.map((text) => ({ role: "user" as const, content: { type: "text" as const, text } })),
});

const tool = (path: string) => testToolRow({ path });

describe("prompt rendering limits", () => {
  it("refuses the probe's prompt (10 × 20,000 placeholders) before rendering anything", () => {
    // With a 25,000-character argument this rendered 5 GB and killed the process.
    const rendered = renderPrompt(prompt(Array.from({ length: 10 }, () => "{{a}}".repeat(20_000))), {
      a: "x".repeat(25_000),
    });
    expect(Either.isLeft(rendered) && rendered.left.detail).toContain("more than 1000 argument placeholders");
  });

  it("refuses a rendering larger than the limit, and renders one exactly at it", () => {
    const text = "{{a}}".repeat(MAX_PROMPT_SUBSTITUTIONS);
    const fits = MAX_RENDERED_PROMPT_CHARS / MAX_PROMPT_SUBSTITUTIONS;
    const ok = renderPrompt(prompt([text]), { a: "x".repeat(Math.floor(fits)) });
    expect(Either.isRight(ok)).toBe(true);
    const over = renderPrompt(prompt([text]), { a: "x".repeat(Math.floor(fits) + 1) });
    expect(Either.isLeft(over) && over.left.detail).toMatch(
      /would render to \d+ characters with these arguments, more than 1048576/,
    );
    expect(Either.isLeft(renderPrompt(prompt([`${text}{{a}}`]), { a: "" }))).toBe(true);
  });

  it("does not count placeholders of undeclared names (they stay as written)", () => {
    const rendered = renderPrompt(prompt(["{{b}}".repeat(5_000), "{{a}}"]), { a: "A" });
    expect(Either.isRight(rendered) && rendered.right[1]?.content.text).toBe("A");
  });
});

/** A `${NAME}` reference, written without a template-looking literal. */
const ref = (name: string) => `$\{${name}}`;

describe("header template limits", () => {
  it("refuses a header whose references resolve past the limit, naming the header, not the value", () => {
    const value = ref("P_BIG").repeat(1_000);
    const values = new Map([["P_BIG", "v".repeat(64 * 1024)]]);
    const resolved = resolveHeaderTemplates([{ key: "X-Big", value }], "P", values);
    expect(Either.isLeft(resolved) && resolved.left.detail).toContain("header 'X-Big' would be 65536000");
    expect(JSON.stringify(resolved)).not.toContain("vvvv");
    const fits = resolveHeaderTemplates(
      [{ key: "X-Ok", value: ref("P_BIG") }],
      "P",
      new Map([["P_BIG", "v".repeat(MAX_RESOLVED_HEADER_CHARS)]]),
    );
    expect(Either.isRight(fits)).toBe(true);
  });
});

describe("upstream path limits", () => {
  it("refuses a path whose repeated placeholder would outgrow the limit", () => {
    const planned = planUpstreamRequest("https://api.example.com", tool(`/${"{id}".repeat(500)}`), {
      pathArgs: { id: "é".repeat(100_000) },
    });
    expect(Either.isLeft(planned) && planned.left._tag === "InvalidArgument" && planned.left.errors).toEqual([
      { path: "pathArgs.id", message: expect.stringContaining(`more than ${MAX_UPSTREAM_PATH_CHARS}`) },
    ]);
    const fine = planUpstreamRequest("https://api.example.com", tool("/a/{id}"), {
      pathArgs: { id: "x".repeat(8_000) },
    });
    expect(Either.isRight(fine)).toBe(true);
  });
});
