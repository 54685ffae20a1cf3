#!/usr/bin/env node
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { renderDocument } from "./render.js";

// Writes the OpenAPI document (with the default authorization server URL) to a file, or checks that the file
// holds exactly that document:   mcpsm-openapi <file>   |   mcpsm-openapi --check <file>
const args = process.argv.slice(2);
const check = args.includes("--check");
const file = args.find((a) => !a.startsWith("--"));
if (file === undefined) {
  process.stderr.write("usage: mcpsm-openapi [--check] <file>\n");
  process.exit(2);
}
const path = resolve(file);
const text = renderDocument();
if (check) {
  let current = "";
  try {
    current = readFileSync(path, "utf8");
  } catch {}
  if (current !== text) {
    process.stderr.write(`${file} is stale: regenerate it with ./run openapi\n`);
    process.exit(1);
  }
  process.stdout.write(`${file} is up to date\n`);
} else {
  writeFileSync(path, text);
  process.stdout.write(`wrote ${file} (${Buffer.byteLength(text)} bytes)\n`);
}
