import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "./support/harness.js";

// The README's "Try it" session is documentation a user pastes: replay its commands with bash, curl and jq
// against a running service and compare with the output the README shows (ids vary from run to run).
const run = promisify(execFile);
const readme = join(import.meta.dirname, "..", "..", "..", "README.md");

/** Each shell block of the "Try it" section that the README follows with its output. */
const sessionSteps = async () => {
  const text = await readFile(readme, "utf8");
  const section = text.slice(text.indexOf("## Try it"), text.indexOf("\n## ", text.indexOf("## Try it") + 1));
  const steps: Array<{ readonly commands: string; readonly output: string }> = [];
  for (const match of section.matchAll(/```sh\n((?:(?!```)[\s\S])*)```\s*```text\n((?:(?!```)[\s\S])*)```/g))
    steps.push({ commands: match[1] ?? "", output: match[2] ?? "" });
  return steps;
};

const withoutIds = (text: string) => text.trim().replace(/"id":"[A-Za-z0-9]{11}"/g, '"id":"<id>"');

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service.close());

describe("the README's curl session", () => {
  it("prints what the README says, step by step", async () => {
    const steps = await sessionSteps();
    expect(steps.length).toBeGreaterThanOrEqual(6);
    // The token comes from the documented CLI (`./run token` runs dist/cli/token.js), signed with the
    // service's dev-auth key in its DATA_DIR.
    const cli = join(import.meta.dirname, "..", "dist", "cli", "token.js");
    const token = (
      await run(process.execPath, [cli], { env: { ...process.env, DATA_DIR: service.dataDir } })
    ).stdout.trim();
    // One bash process for the whole session, as a user's shell; a marker separates the steps' outputs.
    const marker = "----- next step -----";
    const script = steps.map((step) => `${step.commands}\necho '${marker}'`).join("\n");
    const { stdout } = await run("bash", ["-euo", "pipefail", "-c", script], {
      env: {
        ...process.env,
        TOKEN: token,
        API: service.url,
        AUTH: `Authorization: Bearer ${token}`,
        JSON: "Content-Type: application/json",
      },
    });
    const printed = stdout.split(`${marker}\n`).slice(0, steps.length);
    expect(printed.map(withoutIds)).toEqual(steps.map((step) => withoutIds(step.output)));
  });
});
