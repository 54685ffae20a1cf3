import {
  Button,
  Checkbox,
  CheckboxGroup,
  FieldError,
  Input,
  Label,
  ListBox,
  ListBoxItem,
  Popover,
  Select,
  SelectValue,
  Text,
  TextArea,
  TextField,
} from "react-aria-components";

// A form generated from a tool's input schema (the MCP tools/list inputSchema). No maintained JSON-Schema
// form library fits here: react-jsonschema-form brings its own widget themes (none for react-aria) and a
// validator bundle several times the console's size, for the handful of shapes tools use. So:
// - an object with declared properties is a group of fields, nested to any depth ({pathArgs, queryArgs,
//   bodyArgs} and the body's own objects);
// - `enum` is a select; `boolean` a checkbox; numbers and strings text fields (checked on submit);
// - an array of enum values is a group of checkboxes, an array of scalars one value a line;
// - anything else (free-form objects, arrays of objects, unions) is JSON text, with the schema's hint.
// Values are kept by dotted path ("queryArgs.state").

type JsonSchema = {
  readonly type?: string | ReadonlyArray<string>;
  readonly properties?: Record<string, JsonSchema>;
  readonly required?: ReadonlyArray<string>;
  readonly description?: string;
  readonly title?: string;
  readonly enum?: ReadonlyArray<unknown>;
  readonly items?: JsonSchema;
  readonly default?: unknown;
};

type Value = string | boolean | ReadonlyArray<string>;
type Values = Readonly<Record<string, Value>>;

const kindOf = (schema: JsonSchema): string =>
  Array.isArray(schema.type)
    ? (schema.type.find((t) => t !== "null") ?? "string")
    : ((schema.type as string | undefined) ??
      (schema.properties !== undefined ? "object" : schema.items !== undefined ? "array" : "string"));

const isGroup = (schema: JsonSchema) => kindOf(schema) === "object" && schema.properties !== undefined;
const isScalar = (kind: string) => kind === "string" || kind === "number" || kind === "integer";
const hasEnum = (schema: JsonSchema | undefined) => Array.isArray(schema?.enum) && (schema?.enum?.length ?? 0) > 0;

/** How a property is edited. */
const widgetOf = (schema: JsonSchema): "group" | "boolean" | "enum" | "enum-list" | "list" | "scalar" | "json" => {
  if (isGroup(schema)) return "group";
  const kind = kindOf(schema);
  if (hasEnum(schema)) return "enum";
  if (kind === "boolean") return "boolean";
  if (kind === "array" && hasEnum(schema.items)) return "enum-list";
  if (kind === "array" && schema.items !== undefined && isScalar(kindOf(schema.items))) return "list";
  return isScalar(kind) ? "scalar" : "json";
};

/** The value of one scalar field, or an error message. */
const parse = (kind: string, text: string): { value?: unknown; error?: string } => {
  if (kind === "number" || kind === "integer") {
    const n = Number(text);
    return text.trim() === "" || Number.isNaN(n) || (kind === "integer" && !Number.isInteger(n))
      ? { error: `expected ${kind}` }
      : { value: n };
  }
  if (kind === "object" || kind === "array" || kind === "json") {
    try {
      return { value: JSON.parse(text) };
    } catch {
      return { error: "expected JSON" };
    }
  }
  return { value: text };
};

/** The enum value a select's key stands for (keys are the values' JSON texts). */
const enumValue = (schema: JsonSchema, key: string): unknown =>
  (schema.enum ?? []).find((v) => JSON.stringify(v) === key);

/** The arguments the form's values stand for (nested as the schema is), and the fields that do not parse. */
export const formArguments = (
  schema: JsonSchema,
  values: Values,
  prefix = "",
): { args: Record<string, unknown>; errors: Record<string, string> } => {
  const args: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const path = prefix === "" ? name : `${prefix}.${name}`;
    const required = (schema.required ?? []).includes(name);
    const widget = widgetOf(property);
    const raw = values[path];
    if (widget === "group") {
      const inner = formArguments(property, values, path);
      Object.assign(errors, inner.errors);
      if (required || Object.keys(inner.args).length > 0) args[name] = inner.args;
    } else if (widget === "boolean") {
      if (raw !== undefined) args[name] = raw === true;
    } else if (widget === "enum-list") {
      const keys = Array.isArray(raw) ? raw : [];
      if (keys.length > 0) args[name] = keys.map((k) => enumValue(property.items ?? {}, k));
      else if (required) errors[path] = "choose at least one";
    } else if (raw === undefined || raw === "") {
      if (required) errors[path] = "required";
    } else if (widget === "enum") {
      args[name] = enumValue(property, String(raw));
    } else if (widget === "list") {
      const kind = kindOf(property.items ?? {});
      const parsed = String(raw)
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => parse(kind, line.trim()));
      const wrong = parsed.find((p) => p.error !== undefined);
      if (wrong !== undefined) errors[path] = `one ${kind} a line: ${wrong.error}`;
      else args[name] = parsed.map((p) => p.value);
    } else {
      const parsed = parse(widget === "json" ? "json" : kindOf(property), String(raw));
      if (parsed.error !== undefined) errors[path] = parsed.error;
      else args[name] = parsed.value;
    }
  }
  return { args, errors };
};

type FieldProps = {
  readonly name: string;
  readonly path: string;
  readonly schema: JsonSchema;
  readonly required: boolean;
  readonly value: Value | undefined;
  readonly error: string | undefined;
  readonly onChange: (path: string, value: Value) => void;
};

const Hint = (props: { readonly schema: JsonSchema }) =>
  props.schema.description === undefined ? null : (
    <Text slot="description" className="muted">
      {props.schema.description}
    </Text>
  );

const kindLabel = (props: FieldProps, kind: string) => (
  <span className="muted">
    ({kind}
    {props.required ? ", required" : ""})
  </span>
);

const EnumField = (props: FieldProps) => (
  <Select
    className="field"
    selectedKey={typeof props.value === "string" && props.value !== "" ? props.value : null}
    onSelectionChange={(k) => props.onChange(props.path, k === null ? "" : String(k))}
    isRequired={props.required}
    isInvalid={props.error !== undefined}
    validationBehavior="aria"
    placeholder="Choose a value"
  >
    <Label>
      {props.name} {kindLabel(props, "one of")}
    </Label>
    <Button className="button select">
      <SelectValue />
    </Button>
    <Hint schema={props.schema} />
    <FieldError className="field-error">{props.error}</FieldError>
    <Popover>
      <ListBox className="listbox">
        {(props.schema.enum ?? []).map((v) => (
          <ListBoxItem key={JSON.stringify(v)} id={JSON.stringify(v)}>
            {typeof v === "string" ? v : JSON.stringify(v)}
          </ListBoxItem>
        ))}
      </ListBox>
    </Popover>
  </Select>
);

const EnumListField = (props: FieldProps) => (
  <CheckboxGroup
    className="field"
    value={Array.isArray(props.value) ? [...props.value] : []}
    onChange={(keys) => props.onChange(props.path, keys)}
    isInvalid={props.error !== undefined}
    validationBehavior="aria"
  >
    <Label>
      {props.name} {kindLabel(props, "any of")}
    </Label>
    <div className="choices">
      {(props.schema.items?.enum ?? []).map((v) => (
        <Checkbox key={JSON.stringify(v)} value={JSON.stringify(v)} className="checkbox">
          <span className="box" aria-hidden="true" />
          {typeof v === "string" ? v : JSON.stringify(v)}
        </Checkbox>
      ))}
    </div>
    <Hint schema={props.schema} />
    <FieldError className="field-error">{props.error}</FieldError>
  </CheckboxGroup>
);

const TextValueField = (props: FieldProps & { readonly widget: "list" | "scalar" | "json" }) => {
  const kind = kindOf(props.schema);
  const label =
    props.widget === "list"
      ? `${kindOf(props.schema.items ?? {})} list, one a line`
      : props.widget === "json"
        ? `${kind}, JSON`
        : kind;
  return (
    <TextField
      className="field"
      value={typeof props.value === "string" ? props.value : ""}
      onChange={(v) => props.onChange(props.path, v)}
      isRequired={props.required}
      isInvalid={props.error !== undefined}
      validationBehavior="aria"
    >
      <Label>
        {props.name} {kindLabel(props, label)}
      </Label>
      {props.widget === "scalar" ? (
        <Input inputMode={kind === "number" || kind === "integer" ? "decimal" : undefined} />
      ) : (
        <TextArea rows={props.widget === "list" ? 3 : 4} className="code" />
      )}
      <Hint schema={props.schema} />
      <FieldError className="field-error">{props.error}</FieldError>
    </TextField>
  );
};

const Fields = (props: {
  readonly schema: JsonSchema;
  readonly prefix: string;
  readonly values: Values;
  readonly errors: Readonly<Record<string, string>>;
  readonly onChange: (path: string, value: Value) => void;
}) => (
  <>
    {Object.entries(props.schema.properties ?? {}).map(([name, property]) => {
      const path = props.prefix === "" ? name : `${props.prefix}.${name}`;
      const field: FieldProps = {
        name,
        path,
        schema: property,
        required: (props.schema.required ?? []).includes(name),
        value: props.values[path],
        error: props.errors[path],
        onChange: props.onChange,
      };
      const widget = widgetOf(property);
      if (widget === "group")
        return (
          <fieldset key={path} className="picker">
            <legend>{name}</legend>
            <Fields
              schema={property}
              prefix={path}
              values={props.values}
              errors={props.errors}
              onChange={props.onChange}
            />
          </fieldset>
        );
      if (widget === "boolean")
        return (
          <Checkbox
            key={path}
            className="checkbox"
            isSelected={field.value === true}
            onChange={(v) => props.onChange(path, v)}
          >
            <span className="box" aria-hidden="true" />
            {name}
          </Checkbox>
        );
      if (widget === "enum") return <EnumField key={path} {...field} />;
      if (widget === "enum-list") return <EnumListField key={path} {...field} />;
      return <TextValueField key={path} {...field} widget={widget} />;
    })}
  </>
);

/** The generated form's fields. */
export const SchemaForm = (props: {
  readonly schema: JsonSchema;
  readonly values: Values;
  readonly errors: Readonly<Record<string, string>>;
  readonly onChange: (path: string, value: Value) => void;
}) =>
  Object.keys(props.schema.properties ?? {}).length === 0 ? (
    <p className="muted">This tool takes no arguments.</p>
  ) : (
    <div className="schema-form">
      <Fields schema={props.schema} prefix="" values={props.values} errors={props.errors} onChange={props.onChange} />
    </div>
  );

export type { JsonSchema, Value as FormValue };
