import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createMcpsmClient } from "../src/index.js";

const packageDir = join(import.meta.dirname, "..");

describe("@mcpsm/client", () => {
  it("its types are what openapi-typescript makes of docs/openapi.json today (regenerate: ./run openapi)", () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpsm-client-"));
    try {
      const out = join(dir, "openapi-types.ts");
      execFileSync(
        join(packageDir, "node_modules", ".bin", "openapi-typescript"),
        [join("..", "..", "docs", "openapi.json"), "--output", out],
        {
          cwd: packageDir,
          stdio: "pipe",
        },
      );
      expect(readFileSync(join(packageDir, "src", "openapi-types.ts"), "utf8")).toBe(readFileSync(out, "utf8"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("sends the bearer token and answers typed data", async () => {
    const seen: Array<Request> = [];
    const fetch = async (request: Request) => {
      seen.push(request);
      return new Response(JSON.stringify({ variables: [] }), {
        status: 200,
        headers: { "content-type": "application/json" },
      });
    };
    const api = createMcpsmClient({ baseUrl: "http://api.test/", token: () => "t0ken", fetch });
    const { data } = await api.GET("/variables");
    expect(data?.variables).toEqual([]);
    expect(seen[0]!.url).toBe("http://api.test/variables");
    expect(seen[0]!.headers.get("authorization")).toBe("Bearer t0ken");
  });
});
