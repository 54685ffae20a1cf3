import type { ServerExportDocument } from "@mcpsm/domain/schemas";
import { uniqueSegments } from "./folder-names.js";

// What a server looks like in its repository (docs/api-rules.md §17):
//
//   <server>/export.json            the export document (docs/api-rules.md §16), importable as is
//   <server>/README.md              what the server offers, for people browsing the repository
//   <server>/<provider>/<tool>.json one file per chosen tool
//
// Only this folder is the service's: it is rewritten on every push, everything else in the repository is
// left alone.

/** The files of a server's folder: path inside the folder → content. */
export type FolderFiles = ReadonlyMap<string, string>;

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** One line of Markdown text: no line breaks, table pipes escaped. */
const cell = (text: string) => text.replace(/\s+/g, " ").replace(/\|/g, "\\|").trim();
const firstLine = (text: string) => cell(text.split(/\r?\n/)[0] ?? "");

/** The README of a server: its purpose, then its tools, prompts, resources and the variables it needs. */
const readme = (doc: ServerExportDocument, toolFolders: ReadonlyArray<string>): string => {
  const lines: Array<string> = [`# ${cell(doc.server.name)}`, ""];
  const description = (doc.server.description ?? "").trim();
  if (description !== "") lines.push(description, "");
  lines.push(
    "This folder is written by the MCP Server Manager on every change of the server: edits here are",
    "overwritten. `export.json` is the whole server (import it with `POST /servers/import`); each provider",
    "folder holds one JSON file per tool.",
    "",
  );
  const toolCount = doc.providers.reduce((n, p) => n + p.tools.length, 0);
  lines.push(`## Tools (${toolCount})`, "");
  for (const [i, provider] of doc.providers.entries()) {
    if (provider.tools.length === 0) continue;
    lines.push(`### ${cell(provider.name)} (\`${cell(provider.baseURL)}\`)`, "");
    const about = firstLine(provider.description ?? "");
    if (about !== "") lines.push(about, "");
    lines.push("| tool | request | description |", "|---|---|---|");
    for (const tool of provider.tools)
      lines.push(
        `| [\`${tool.name}\`](${toolFolders[i]}/${tool.name}.json) | \`${tool.method} ${cell(tool.path)}\` | ${firstLine(tool.title || tool.description || "")} |`,
      );
    lines.push("");
  }
  const prompts = doc.providers.flatMap((p) => p.prompts);
  if (prompts.length > 0) {
    lines.push(`## Prompts (${prompts.length})`, "");
    for (const prompt of prompts) lines.push(`- **${cell(prompt.name)}**: ${firstLine(prompt.description ?? "")}`);
    lines.push("");
  }
  const resources = doc.providers.flatMap((p) => p.resources);
  if (resources.length > 0) {
    lines.push(`## Resources (${resources.length})`, "");
    for (const resource of resources) lines.push(`- **${cell(resource.name)}**: \`${cell(resource.uri)}\``);
    lines.push("");
  }
  if (doc.variables.length > 0) {
    lines.push("## Variables it needs", "", "Set these in the tenant that imports the server:", "");
    for (const variable of doc.variables) lines.push(`- \`${variable.name}\` (${variable.type})`);
    lines.push("");
  }
  return `${lines.join("\n").trimEnd()}\n`;
};

/** The files of a server's folder for its export document. */
export const folderFiles = (doc: ServerExportDocument): FolderFiles => {
  const toolFolders = uniqueSegments(
    doc.providers.map((p) => p.name),
    ["export.json", "README.md"],
  );
  const files = new Map<string, string>([
    ["export.json", json(doc)],
    ["README.md", readme(doc, toolFolders)],
  ]);
  for (const [i, provider] of doc.providers.entries()) {
    const names = uniqueSegments(provider.tools.map((t) => t.name));
    for (const [j, tool] of provider.tools.entries()) files.set(`${toolFolders[i]}/${names[j]}.json`, json(tool));
  }
  return files;
};
