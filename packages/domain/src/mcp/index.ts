export * from "./expansion-limits.js";
export * from "./header-templates.js";
export * from "./prompt-rendering.js";
export * from "./server-access.js";
export * from "./server-view.js";
export * from "./tool-arguments.js";
export * from "./upstream-request.js";
export * from "./lenient-output-schema.js";
export * from "./fixed-query.js";
export * from "./form-encoding.js";
export * from "./request-body.js";
export * from "./schema-nesting.js";
export * from "./upstream-credentials.js";
export * from "./upstream-headers.js";
export * from "./oauth-access-token.js";
export { MASK, maskArguments } from "../call-log/argument-masking.js";
export { callPrincipal } from "../call-log/call-principal.js";

export * from "./pinned-arguments.js";
