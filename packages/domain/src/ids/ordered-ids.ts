import { newId } from "./id.js";

/**
 * `count` fresh ids in ascending order. Records made in one transaction share their creation time, and lists
 * order them by (creation time, id): handing sorted ids out in document order keeps the document's order.
 */
export const orderedIds = (count: number): Array<string> =>
  Array.from({ length: count }, newId).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
