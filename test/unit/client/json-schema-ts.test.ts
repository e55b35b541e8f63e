/**
 * The JSON Schema → TypeScript printer behind client/src/api.gen.ts, on the shapes zod writes:
 * nullable (type arrays and anyOf), enums and consts, records and loose objects, $refs, quoted
 * keys; and it refuses keywords it cannot type rather than printing a wrong type.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toTs, type JsonSchema } from '../../../tools/client-api/json-schema-ts.js';

const print = (s: z.ZodType, io: 'input' | 'output' = 'output') =>
  toTs(z.toJSONSchema(s, { io }) as JsonSchema, { refName: (r) => `Ref<${r}>` })
    .replace(/\s+/g, ' ')
    .trim();

describe('toTs', () => {
  it('prints objects with required and optional members, nullable and enum values', () => {
    const s = z.strictObject({
      id: z.string().regex(/^[0-9]+$/),
      caption: z.string().nullable(),
      after: z.union([z.string(), z.null()]),
      mode: z.enum(['a', 'b']).optional(),
      n: z.number().int(),
    });
    expect(print(s)).toBe(
      "{ id: string; caption: string | null; after: string | null; mode?: 'a' | 'b'; n: number; }".replace(
        /'/g,
        '"',
      ),
    );
  });

  it('takes defaults as optional on the input side only', () => {
    const s = z.strictObject({ position: z.enum(['x']).default('x') });
    expect(print(s, 'input')).toBe('{ position?: "x"; }');
    expect(print(s, 'output')).toBe('{ position: "x"; }');
  });

  it('prints records, loose objects, arrays of unions, consts and empty objects', () => {
    expect(print(z.record(z.string(), z.enum(['ok', 'down'])))).toBe(
      '{ [key: string]: "ok" | "down"; }',
    );
    expect(print(z.looseObject({ code: z.string() }))).toBe(
      '{ code: string; [key: string]: unknown; }',
    );
    expect(print(z.array(z.union([z.string(), z.number()])))).toBe('(string | number)[]');
    expect(print(z.literal('ok'))).toBe('"ok"');
    expect(print(z.strictObject({}))).toBe('Record<string, never>');
    expect(print(z.strictObject({ 'a-b': z.boolean() }))).toBe('{ "a-b": boolean; }');
  });

  it('names $refs through refName and keeps descriptions as doc comments', () => {
    const schema = { type: 'object', properties: { p: { $ref: '#/x/Post', description: 'd' } } };
    expect(toTs(schema, { refName: (r) => r.split('/').pop()! })).toBe(
      '{\n  /** d */\n  p?: Post;\n}',
    );
  });

  it('refuses keywords that would change the type', () => {
    const opts = { refName: String };
    expect(() => toTs({ not: { type: 'string' } }, opts)).toThrow(/unsupported keyword not/);
    expect(() => toTs({ type: 'array', items: [{ type: 'string' }] }, opts)).toThrow(/tuple/);
    expect(() => toTs({ type: 'bigint' }, opts)).toThrow(/unsupported type/);
    expect(() => print(z.tuple([z.string()]))).toThrow(/unsupported keyword prefixItems/);
  });
});
