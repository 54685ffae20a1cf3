import { type EntityMetadata, type EntityProperty, ReferenceKind } from "@mikro-orm/core";
import { Schema, SchemaAST } from "effect";
import { rowDecoder } from "./row-decoder.js";

// A table as the adapter's SQL sees it, derived from two descriptions that exist anyway: the entity's
// metadata (which columns, of which type) and the domain's row schema (which fields, decoded how). A column
// stores the row field of its property's name; a many-to-one reference `provider` stores `providerId`.
// Building a table checks that the two agree, so a field without a column (or a column without a field)
// stops the adapter at start-up instead of reading as `undefined`.

/** How a column's value travels: timestamps as epoch milliseconds, JSON documents as JSON text. */
type ColumnKind = "timestamp" | "json" | "jsonb" | "value";

/** One column of a table and the row field it stores. */
export interface Column {
  readonly field: string;
  readonly name: string;
  readonly kind: ColumnKind;
  readonly nullable: boolean;
}

/** A table: its columns, the JSON object a read builds of a row, and the decoder of that JSON. */
export interface Table<Row> {
  readonly name: string;
  /** The primary key column (the row's `id`). */
  readonly key: Column;
  readonly columns: ReadonlyArray<Column>;
  /** The schema of a row as `json` builds it: the domain's row schema, with timestamps from epoch ms. */
  readonly stored: Schema.Schema<Row, unknown>;
  /**
   * SQL of a `json_build_object` of the row aliased `alias`, keyed by the row's field names, plus `extra`
   * fields (a key and an SQL expression each) for what the row keeps in other tables.
   */
  readonly json: (alias: string, extra?: ReadonlyArray<readonly [string, string]>) => string;
  /** Decodes one JSON object built by `json` (a defect when it does not fit the row schema). */
  readonly decode: (json: unknown) => Row;
}

/** A statement with its parameters taken from a row. */
export interface RowStatement<Row, Extra extends ReadonlyArray<unknown> = []> {
  readonly sql: string;
  readonly params: (row: Row, ...extra: Extra) => ReadonlyArray<unknown>;
}

/**
 * Epoch milliseconds of a timestamptz column. Rounded: the columns keep milliseconds, but on servers whose
 * `extract` answers a double (PostgreSQL 13 and older) the product can fall just below the whole number.
 */
const epochMs = (column: string) => `round(extract(epoch from ${column}) * 1000)::float8`;

const isDateFromSelf = (ast: SchemaAST.AST) => ast === Schema.DateFromSelf.ast;

/** The decoder of a timestamp column whose row field is `field` (a `Date`, or a nullable `Date`). */
const storedTimestamp = (table: string, column: Column, field: Schema.Struct.Field) => {
  const ast = Schema.isSchema(field) ? field.ast : undefined;
  const nullableDate =
    ast !== undefined &&
    SchemaAST.isUnion(ast) &&
    ast.types.length === 2 &&
    ast.types.some(isDateFromSelf) &&
    ast.types.some((member) => member === SchemaAST.null);
  if (ast !== undefined && isDateFromSelf(ast) && !column.nullable) return Schema.DateFromNumber;
  if (nullableDate && column.nullable) return Schema.NullOr(Schema.DateFromNumber);
  throw new Error(`${table}.${column.name} is a timestamp column, but the row field '${column.field}' is no Date`);
};

/** The column of an entity property, if the property is one (scalars and single-column references). */
const columnOf = (meta: EntityMetadata, prop: EntityProperty): Column => {
  const name = prop.name;
  const [column, ...more] = prop.fieldNames;
  if (column === undefined || more.length > 0)
    throw new Error(`${meta.tableName}.${name}: a row field is stored in exactly one column`);
  const reference = prop.kind === ReferenceKind.MANY_TO_ONE;
  if (!reference && prop.kind !== ReferenceKind.SCALAR)
    throw new Error(`${meta.tableName}.${name}: only scalars and many-to-one references map to row fields`);
  const columnType = prop.columnTypes[0] ?? "";
  return {
    field: reference ? `${name}Id` : name,
    name: column,
    kind:
      prop.runtimeType === "Date"
        ? "timestamp"
        : columnType === "jsonb" || columnType === "json"
          ? columnType
          : "value",
    nullable: prop.nullable === true,
  };
};

/**
 * The table of `meta` storing rows of `row`. `linked` names the row fields kept in other tables (a server's
 * links); every other field must have a column and every column a field.
 */
export const describeTable = <Fields extends Schema.Struct.Fields>(
  meta: EntityMetadata,
  row: Schema.Struct<Fields>,
  linked: ReadonlyArray<keyof Fields & string> = [],
): Table<Schema.Struct.Type<Fields>> => {
  const name = meta.tableName;
  const columns = meta.props.map((prop) => columnOf(meta, prop));
  const fields: Schema.Struct.Fields = row.fields;
  for (const column of columns)
    if (!(column.field in fields))
      throw new Error(`${name}.${column.name} stores '${column.field}', which the row schema does not have`);
  for (const field of Object.keys(fields))
    if (!linked.includes(field) && !columns.some((column) => column.field === field))
      throw new Error(`the row field '${field}' has no column in ${name}`);
  const [primary, ...compound] = meta.primaryKeys;
  // The key property's column (a many-to-one key such as a server's outbox entry's `server` is `server_id`).
  const keyColumn = meta.props.find((prop) => prop.name === primary)?.fieldNames[0];
  const key = columns.find((column) => column.name === keyColumn);
  if (key === undefined || compound.length > 0) throw new Error(`${name} needs a single-column primary key`);

  const timestamps = Object.fromEntries(
    columns
      .filter((column) => column.kind === "timestamp")
      .map((column) => {
        const field = fields[column.field];
        if (field === undefined) throw new Error(`${name}.${column.name}: no row field`);
        return [column.field, storedTimestamp(name, column, field)];
      }),
  );
  // The same fields, decoded alike, except that each Date arrives as epoch milliseconds: the Type of the
  // result is the row's (checked above field by field), which TypeScript cannot see through the spread.
  const stored = Schema.Struct({ ...fields, ...timestamps }) as unknown as Schema.Schema<
    Schema.Struct.Type<Fields>,
    unknown
  >;
  const decode = rowDecoder(stored);

  return {
    name,
    key,
    columns,
    stored,
    json: (alias, extra = []) =>
      `json_build_object(${[
        ...columns.map((column) => {
          const value = `${alias}.${column.name}`;
          return `'${column.field}', ${column.kind === "timestamp" ? epochMs(value) : value}`;
        }),
        ...extra.map(([field, sql]) => `'${field}', ${sql}`),
      ].join(", ")})`,
    decode,
  };
};

/** The placeholder `$n` of a column's parameter (JSON columns take JSON text, cast to the column's own type). */
const placeholder = (column: Column, n: number) =>
  column.kind === "json" || column.kind === "jsonb" ? `$${n}::${column.kind}` : `$${n}`;

/** The parameter of a column from a row: timestamps as ISO text, JSON documents as JSON text (null as NULL). */
const paramOf = (column: Column, row: object): unknown => {
  const value = (row as Readonly<Record<string, unknown>>)[column.field];
  if (value === null || value === undefined) return null;
  if (column.kind === "timestamp") return (value as Date).toISOString();
  if (column.kind === "json" || column.kind === "jsonb") return JSON.stringify(value);
  return value;
};

/** `insert into <table> (<every column>) values (…)`: the whole row. */
export const insertRow = <Row extends object>(table: Table<Row>): RowStatement<Row> => ({
  sql: `insert into ${table.name} (${table.columns.map((column) => column.name).join(", ")}) values (${table.columns
    .map((column, i) => placeholder(column, i + 1))
    .join(", ")})`,
  params: (row) => table.columns.map((column) => paramOf(column, row)),
});

/**
 * `insert into <table> (<every column>) select … where <condition>`: the whole row when `condition` holds,
 * nothing otherwise. `condition` sees the row's parameters by field (`$n` of `field`) and may use `$` +
 * (the number of columns + 1) onwards for its own.
 */
export const insertRowWhere = <Row extends object>(
  table: Table<Row>,
  condition: (param: (field: keyof Row & string) => string) => string,
): RowStatement<Row> => {
  const param = (field: keyof Row & string) => {
    const i = table.columns.findIndex((column) => column.field === field);
    if (i < 0) throw new Error(`${table.name}: '${field}' is no column`);
    return `$${i + 1}`;
  };
  return {
    sql: `insert into ${table.name} (${table.columns.map((column) => column.name).join(", ")}) select ${table.columns
      .map((column, i) => placeholder(column, i + 1))
      .join(", ")} where ${condition(param)}`,
    params: (row) => table.columns.map((column) => paramOf(column, row)),
  };
};

/** The assignments of an update: every column but the key and the `keep` ones, from `$2` on. */
const assignments = <Row extends object>(table: Table<Row>, keep: ReadonlyArray<keyof Row & string>) => {
  for (const field of keep)
    if (field === table.key.field || !table.columns.some((column) => column.field === field))
      throw new Error(`${table.name}: '${field}' is no column an update could set`);
  const set = table.columns.filter((column) => column !== table.key && !keep.some((field) => field === column.field));
  return {
    sql: set.map((column, i) => `${column.name} = ${placeholder(column, i + 2)}`).join(", "),
    params: (row: Row) => [paramOf(table.key, row), ...set.map((column) => paramOf(column, row))],
    next: set.length + 2,
  };
};

/**
 * `update <table> set <every column but the key and the kept ones> where <key> = $1`: the row's new
 * values; the `keep` fields stay as stored (the port says which: a tenant, a creation time…).
 */
export const updateRow = <Row extends object>(
  table: Table<Row>,
  keep: ReadonlyArray<keyof Row & string>,
): RowStatement<Row> => {
  const set = assignments(table, keep);
  return { sql: `update ${table.name} set ${set.sql} where ${table.key.name} = $1`, params: set.params };
};

/**
 * `updateRow` as a compare-and-set on `version`: it changes the row only if the stored version is the
 * expected one, and answers the key when it did.
 */
export const updateRowIfVersion = <Row extends object>(
  table: Table<Row>,
  keep: ReadonlyArray<keyof Row & string>,
): RowStatement<Row, [expectedVersion: number]> => {
  const set = assignments(table, keep);
  const version = table.columns.find((column) => column.field === "version");
  if (version === undefined) throw new Error(`${table.name} has no version column`);
  return {
    sql: `update ${table.name} set ${set.sql} where ${table.key.name} = $1 and ${version.name} = $${set.next} returning ${table.key.name}`,
    params: (row, expectedVersion) => [...set.params(row), expectedVersion],
  };
};
