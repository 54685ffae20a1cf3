// How the usage pages write their figures.

/** A count with thousands separators. */
export const count = (n: number) => n.toLocaleString("en");
/** Milliseconds, one decimal below 10. */
export const ms = (n: number) => `${n < 10 ? n.toFixed(1) : Math.round(n).toLocaleString("en")} ms`;
/** A ratio as a percentage, two decimals when it is small but not zero. */
export const percent = (n: number) => `${(n * 100).toFixed(n > 0 && n < 0.01 ? 2 : 1)} %`;
