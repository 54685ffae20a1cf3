import { relaunchWithHeapSettings } from "./launcher/heap-settings.js";

// The entry point. The heap settings must be given to V8 at process start, so when they are missing this
// process is replaced by one that has them (launcher/heap-settings.ts) before the service's modules load.
relaunchWithHeapSettings();
await import("./serve.js");
