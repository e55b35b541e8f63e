/**
 * Checks real replies against the served OpenAPI document: the operation is found by method
 * and path template, the status must be documented for it, and a JSON body must validate (ajv,
 * JSON Schema 2020-12, formats on) against the documented schema of its content type.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly json: unknown;
}

const BASE = 'https://regrid.test/openapi.json';

export class Contract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly templates: Array<{ path: string; re: RegExp; literal: number }>;
  /** `METHOD template status` of every reply checked, for coverage. */
  readonly seen = new Set<string>();

  /**
   * `skipUndocumented`: replies of routes the document lacks are not checked here (the route
   * walk in api/openapi.test.ts names those), only replies of documented operations.
   */
  constructor(
    readonly doc: Json,
    private readonly skipUndocumented = false,
  ) {
    addFormats.default(this.ajv);
    // Point the document's local references at the document itself, added as a schema.
    const absolute = JSON.parse(
      JSON.stringify(doc).replaceAll('"#/components/', `"${BASE}#/components/`),
    );
    this.ajv.addSchema({ $id: BASE, components: absolute.components });
    this.absolute = absolute;
    this.templates = Object.keys(doc.paths).map((path) => ({
      path,
      re: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      literal: path.replace(/\{[^}]+\}/g, '').length,
    }));
  }

  private readonly absolute: Json;

  /** Problems with the reply (empty = it matches the document). */
  check(method: string, url: string, reply: Reply): string[] {
    const path = url.split('?')[0]!;
    const t = this.templates
      .filter((x) => x.re.test(path))
      .sort((a, b) => b.literal - a.literal)[0];
    const where = `${method} ${path} → ${reply.status}`;
    if (!t) {
      // The app's answer to a route that does not exist (app.notFound) is no operation's.
      const unknownRoute =
        reply.status === 404 && (reply.json as { code?: string })?.code === 'not_found';
      return unknownRoute || this.skipUndocumented ? [] : [`${where}: no documented path`];
    }
    const op = this.absolute.paths[t.path][method.toLowerCase()];
    if (!op) return this.skipUndocumented ? [] : [`${where}: method not documented for ${t.path}`];
    // `default` stands for the unexpected 500 only: every other status must be listed.
    const res =
      op.responses[String(reply.status)] ??
      (reply.status === 500 ? op.responses.default : undefined);
    if (!res) return [`${where}: status not documented for ${op.operationId}`];
    this.seen.add(`${method.toUpperCase()} ${t.path} ${reply.status}`);
    const errors: string[] = [];
    for (const name of Object.keys(res.headers ?? {})) {
      const must = name === 'ETag' || (name === 'Retry-After' && reply.status === 503);
      if (must && !reply.headers.get(name)) errors.push(`${where}: header ${name} missing`);
    }
    if (!res.content) return errors;
    const type = (reply.headers.get('content-type') ?? '').split(';')[0]!.trim();
    const media = res.content[type] ?? res.content['*/*'];
    if (!media) return [...errors, `${where}: content type ${type} not documented`];
    if (!type.endsWith('json') || !media.schema || Object.keys(media.schema).length === 0)
      return errors;
    const key = `${op.operationId} ${reply.status} ${type}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(media.schema);
      this.compiled.set(key, validate);
    }
    if (!validate(reply.json)) {
      errors.push(
        `${where}: ${this.ajv.errorsText(validate.errors)} in ${JSON.stringify(reply.json)}`,
      );
    }
    return errors;
  }
}
