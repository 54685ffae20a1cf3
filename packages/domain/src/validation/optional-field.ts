import { Schema } from "effect";

/**
 * An optional write field: absent or of schema `s` (no implicit `undefined` branch, whose failure would
 * otherwise show up as a confusing "Expected undefined" problem).
 */
export const optional = <S extends Schema.Schema.All>(s: S) => Schema.optionalWith(s, { exact: true });
