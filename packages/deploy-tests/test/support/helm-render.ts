import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { New, type Template } from "@mdfriday/text-template";
import { parseAllDocuments, parse as parseYaml } from "yaml";
import { helmFunctions } from "./helm-functions.js";

// `helm template` for this chart, in JavaScript: the chart's templates are Go text/template, executed by a
// TypeScript port of Go's text/template with the Sprig/Helm functions the chart uses (helm-functions.ts), on
// the objects Helm gives a template (.Values merged as Helm merges them, .Release, .Chart). Helm itself is not
// installable here (docs/deployment.md, "What CI checks"); a real `helm template` renders the same files.

export type Manifest = { readonly apiVersion: string; readonly kind: string; readonly [key: string]: unknown };
type Values = { [key: string]: unknown };

const isMap = (value: unknown): value is Values => typeof value === "object" && value !== null && !Array.isArray(value);

/** Helm's coalescing of user values over the chart's: maps merge key by key, a null deletes, else replaces. */
export const mergeValues = (base: Values, over: Values): Values => {
  const merged: Values = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === null) delete merged[key];
    else if (isMap(value) && isMap(merged[key])) merged[key] = mergeValues(merged[key] as Values, value);
    else merged[key] = value;
  }
  return merged;
};

const unwrap = <T>([value, error]: [T, Error | null]): T => {
  if (error !== null) throw error;
  return value;
};

/** Renders every template of the chart in `chartDir` with the values files `valuesFiles` (later wins). */
export const renderChart = async (
  chartDir: string,
  valuesFiles: ReadonlyArray<string>,
  release = { name: "mcpsm", namespace: "default", revision: 1 },
): Promise<ReadonlyArray<Manifest>> => {
  const chart = parseYaml(await readFile(join(chartDir, "Chart.yaml"), "utf8")) as Values;
  let values = parseYaml(await readFile(join(chartDir, "values.yaml"), "utf8")) as Values;
  for (const file of valuesFiles) values = mergeValues(values, parseYaml(await readFile(file, "utf8")) as Values);
  const context = {
    Values: values,
    Release: {
      Name: release.name,
      Namespace: release.namespace,
      Revision: release.revision,
      IsInstall: release.revision === 1,
      IsUpgrade: release.revision > 1,
      Service: "Helm",
    },
    Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion },
  };
  // Helm executes with missingkey=zero and then blanks "<no value>".
  const root: Template = New(String(chart.name)).Option("missingkey=zero");
  root.Funcs(
    new Map(
      helmFunctions(async (name, data) => unwrap(await root.ExecuteTemplate(name, data)).replaceAll("<no value>", "")),
    ),
  );
  const templatesDir = join(chartDir, "templates");
  const files = (await readdir(templatesDir)).filter((file) => /\.(ya?ml|tpl)$/.test(file)).sort();
  for (const file of files) unwrap(root.New(file).Parse(await readFile(join(templatesDir, file), "utf8")));
  const manifests: Array<Manifest> = [];
  for (const file of files.filter((name) => !name.startsWith("_"))) {
    const text = unwrap(await root.ExecuteTemplate(file, context)).replaceAll("<no value>", "");
    for (const document of parseAllDocuments(text)) {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]!.message}\n${text}`);
      const object = document.toJS() as Manifest | null;
      if (object !== null) manifests.push(object);
    }
  }
  return manifests;
};
