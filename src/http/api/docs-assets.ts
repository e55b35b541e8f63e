/**
 * The files of the interactive docs (GET /docs/:asset): Swagger UI's own, read from the
 * swagger-ui-dist package in node_modules (a user's machine may have no internet, so nothing
 * comes from a CDN), and our small initializer. Read from disk on each request (a page for people,
 * not traffic).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

interface Asset {
  readonly contentType: string;
  /** A file of swagger-ui-dist, or our own text. */
  readonly file?: string;
  readonly text?: string;
}

// Every URL below is relative to the page, which has no trailing slash: the page's file named
// `docs/<name>` resolves to /docs/<name>, or to /prefix/docs/<name> where a host mounts regrid
// (docs/embedding.md), and the document to /openapi.json or /prefix/openapi.json.
const INIT = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: 'openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    persistAuthorization: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
  });
};
`;

export const DOCS_ASSETS: Readonly<Record<string, Asset>> = {
  'swagger-ui.css': { contentType: 'text/css; charset=utf-8', file: 'swagger-ui.css' },
  'swagger-ui-bundle.js': {
    contentType: 'text/javascript; charset=utf-8',
    file: 'swagger-ui-bundle.js',
  },
  'swagger-ui-standalone-preset.js': {
    contentType: 'text/javascript; charset=utf-8',
    file: 'swagger-ui-standalone-preset.js',
  },
  'favicon-32x32.png': { contentType: 'image/png', file: 'favicon-32x32.png' },
  'init.js': { contentType: 'text/javascript; charset=utf-8', text: INIT },
};

export const DOCS_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>regrid API</title>
    <link rel="stylesheet" href="docs/swagger-ui.css" />
    <link rel="icon" type="image/png" href="docs/favicon-32x32.png" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="docs/swagger-ui-bundle.js"></script>
    <script src="docs/swagger-ui-standalone-preset.js"></script>
    <script src="docs/init.js"></script>
  </body>
</html>
`;

/** The asset's bytes, or undefined for a name that is not one. */
export function readAsset(
  name: string,
): { contentType: string; bytes: Promise<Uint8Array<ArrayBuffer>> } | undefined {
  const asset = Object.hasOwn(DOCS_ASSETS, name) ? DOCS_ASSETS[name] : undefined;
  if (!asset) return undefined;
  const bytes = asset.file
    ? readFile(join(distDir(), asset.file)).then((b) => new Uint8Array(b))
    : Promise.resolve(new TextEncoder().encode(asset.text ?? ''));
  return { contentType: asset.contentType, bytes };
}

const distDir = () =>
  dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
