/** The position of a row in every list of the port. */
export interface CreationKey {
  readonly createdAt: Date;
  readonly id: string;
}

/**
 * Orders by creation time, then by id compared code unit by code unit. Ids mix upper and lower case, so
 * this is the order of PostgreSQL's "C" collation, not of a locale collation that folds case.
 */
export const compareCreation = (a: CreationKey, b: CreationKey): number =>
  a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The rows in creation order (a new array). */
export const inCreationOrder = <T extends CreationKey>(rows: Iterable<T>): Array<T> => [...rows].sort(compareCreation);
