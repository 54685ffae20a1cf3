// @mcpsm/domain/testing: what a test of code built on the domain needs: actors with or without write
// scopes, the use cases' services over a given store with throwaway keys, and a plain stored tool.

export { READ_ONLY_SCOPES, testActor, testServicesLayer, WRITE_OPERATIONS } from "../testing/test-kit.js";
export { testToolRow } from "../testing/tool-row.js";
