import type { FolderChanges } from "./push-folder.js";

// A commit message a reviewer can read in `git log`: the server, its version, and what changed in words
// (tools added, changed, removed), then the files.

const toolOf = (path: string) => {
  const parts = path.split("/");
  // <server>/<provider>/<tool>.json
  return parts.length === 3 && parts[2]?.endsWith(".json") ? `${parts[1]}/${parts[2].slice(0, -5)}` : undefined;
};

const list = (names: ReadonlyArray<string>, max = 5) =>
  names.length <= max ? names.join(", ") : `${names.slice(0, max).join(", ")} and ${names.length - max} more`;

/** The message of a commit of server `name` at `version` making `changes`. */
export const commitMessage = (name: string, version: number, changes: FolderChanges, first: boolean): string => {
  const tools = (paths: ReadonlyArray<string>) => paths.map(toolOf).filter((t): t is string => t !== undefined);
  const added = tools(changes.added);
  const modified = tools(changes.modified);
  const removed = tools(changes.removed);
  const parts = [
    ...(added.length > 0 ? [`add ${added.length === 1 ? "tool" : "tools"} ${list(added)}`] : []),
    ...(modified.length > 0 ? [`change ${modified.length === 1 ? "tool" : "tools"} ${list(modified)}`] : []),
    ...(removed.length > 0 ? [`remove ${removed.length === 1 ? "tool" : "tools"} ${list(removed)}`] : []),
  ];
  const summary = first
    ? "export the server"
    : parts.length > 0
      ? parts.join("; ")
      : "update the server's settings, prompts or resources";
  const subject = `${name} v${version}: ${summary}`;
  const body = [
    `Server "${name}" is now at version ${version}.`,
    "",
    ...changes.added.map((p) => `added:    ${p}`),
    ...changes.modified.map((p) => `changed:  ${p}`),
    ...changes.removed.map((p) => `removed:  ${p}`),
    "",
    "Written by the MCP Server Manager (git sync).",
  ];
  return `${subject.length > 100 ? `${subject.slice(0, 99)}…` : subject}\n\n${body.join("\n")}\n`;
};
