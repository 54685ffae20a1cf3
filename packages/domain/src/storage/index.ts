export * from "./rows.js";
export * from "./storage-errors.js";
export * from "./storage-port.js";
