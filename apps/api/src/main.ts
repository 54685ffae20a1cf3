import { relaunchWithMemorySettings } from "./launcher/memory-settings.js";

// The entry point. V8 and glibc read their memory settings only at process start, so when they are missing
// this process is replaced by one that has them (launcher/memory-settings.ts) before the service's modules load.
relaunchWithMemorySettings();
await import("./serve.js");
