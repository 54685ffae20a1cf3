export * from "./expansion-limits.js";
export * from "./header-templates.js";
export * from "./prompt-rendering.js";
export * from "./server-access.js";
export * from "./server-view.js";
export * from "./tool-arguments.js";
export * from "./upstream-request.js";
export * from "./schema-nesting.js";
