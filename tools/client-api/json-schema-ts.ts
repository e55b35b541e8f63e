/**
 * JSON Schema (as the OpenAPI document carries it) → TypeScript type text, for the client package's
 * generated API types (client/src/api.gen.ts). It knows the keywords the document's schemas use
 * and throws on any other that would change the type (`not`, `if`, tuples…), so a new kind of
 * schema fails the generator instead of being printed wrong. Validation-only keywords (pattern,
 * lengths, formats, bounds) do not change the type and are dropped.
 */

export type JsonSchema = { readonly [keyword: string]: unknown };

/** Keywords that only constrain values, or document them. */
const IGNORED = new Set([
  '$schema',
  '$id',
  'id',
  'title',
  'description',
  'examples',
  'default',
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'propertyNames',
  'contentEncoding',
  'readOnly',
]);
const TYPED = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  'oneOf',
  'allOf',
  '$ref',
]);

export interface PrintOptions {
  /** The type name a `$ref` stands for. */
  readonly refName: (ref: string) => string;
  /** Indentation of nested object members (default two spaces per level). */
  readonly indent?: string;
}

const literal = (v: unknown): string => {
  if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) return JSON.stringify(v);
  throw new TypeError(`cannot print the literal ${JSON.stringify(v)} as a type`);
};

const union = (parts: string[]): string => {
  const unique = [...new Set(parts)];
  return unique.length === 0 ? 'never' : unique.join(' | ');
};

/** Wraps a union or intersection so `[]` or `&` binds to the whole of it. */
const group = (t: string): string => (/[|&]/.test(t) && !/^[{(]/.test(t) ? `(${t})` : t);

const KEY = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const comment = (s: unknown, pad: string): string =>
  typeof s === 'string' && s ? `${pad}/** ${s.replaceAll('*/', '*\\/')} */\n` : '';

export function toTs(schema: JsonSchema | boolean, options: PrintOptions, depth = 0): string {
  if (schema === true) return 'unknown';
  if (schema === false) return 'never';
  for (const k of Object.keys(schema)) {
    if (!IGNORED.has(k) && !TYPED.has(k)) throw new TypeError(`unsupported keyword ${k}`);
  }
  const parts: string[] = [];
  if (typeof schema['$ref'] === 'string') parts.push(options.refName(schema['$ref']));
  if ('const' in schema) parts.push(literal(schema['const']));
  if (Array.isArray(schema['enum'])) parts.push(union(schema['enum'].map(literal)));
  for (const k of ['anyOf', 'oneOf'] as const) {
    const alts = schema[k];
    if (Array.isArray(alts)) parts.push(union(alts.map((s) => toTs(s, options, depth))));
  }
  if (Array.isArray(schema['allOf'])) {
    parts.push(schema['allOf'].map((s) => group(toTs(s, options, depth))).join(' & '));
  }
  const type = schema['type'];
  if (type !== undefined && !('const' in schema) && !('enum' in schema)) {
    const types = Array.isArray(type) ? type : [type];
    parts.push(union(types.map((t) => ofType(String(t), schema, options, depth))));
  }
  // An enum or const with a type: the literals already say it.
  if (parts.length === 0) return 'unknown';
  return parts.length === 1 ? parts[0]! : parts.map(group).join(' & ');
}

function ofType(type: string, schema: JsonSchema, options: PrintOptions, depth: number): string {
  switch (type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const items = schema['items'];
      if (items === undefined) return 'unknown[]';
      if (Array.isArray(items)) throw new TypeError('tuple schemas are not supported');
      return `${group(toTs(items as JsonSchema, options, depth))}[]`;
    }
    case 'object':
      return objectType(schema, options, depth);
    default:
      throw new TypeError(`unsupported type ${type}`);
  }
}

function objectType(schema: JsonSchema, options: PrintOptions, depth: number): string {
  const unit = options.indent ?? '  ';
  const pad = unit.repeat(depth + 1);
  const props = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema['required'] ?? []) as string[]);
  const lines: string[] = [];
  for (const [name, prop] of Object.entries(props)) {
    const key = KEY.test(name) ? name : JSON.stringify(name);
    const opt = required.has(name) ? '' : '?';
    const desc = comment(prop['description'], pad);
    lines.push(`${desc}${pad}${key}${opt}: ${toTs(prop, options, depth + 1)};`);
  }
  const extra = schema['additionalProperties'];
  if (extra !== undefined && extra !== false) {
    const value = extra === true ? 'unknown' : toTs(extra as JsonSchema, options, depth + 1);
    lines.push(`${pad}[key: string]: ${value};`);
  } else if (extra === undefined && lines.length === 0) {
    return 'Record<string, unknown>';
  }
  if (lines.length === 0) return 'Record<string, never>';
  return `{\n${lines.join('\n')}\n${unit.repeat(depth)}}`;
}
