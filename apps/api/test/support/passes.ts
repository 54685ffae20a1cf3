/**
 * True in the suite's second pass, on PostgreSQL (vitest.config.ts). Files whose subject is not the store
 * (authentication modes, rate limits, headers, the route inventory, upstream answers, or tests that open their
 * own stores) skip their suites then, as the files listed in vitest.config.ts are left out of that pass.
 */
export const secondStorePass = process.env.API_TEST_STORAGE === "postgres";
