/**
 * An embedding host's own tracing (createRegrid's `tracer` option, docs/embedding.md): the host
 * runs the OpenTelemetry SDK (a provider with a batch processor and the OTLP/HTTP JSON exporter,
 * pointed at a real receiver, a node:http server here) and hands regrid its tracer. One move with
 * an incoming `traceparent` reaches the host's receiver as one trace: the request span (the
 * caller's span its parent), the write line, the compare-and-set and its CQL batch. Without the
 * option the same move exports nothing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Client } from 'cassandra-driver';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegrid } from '../../../src/index.js';
import { issueToken } from '../../../src/http/auth.js';
import { randomProfile } from '../core/harness.js';
import { connectTestClient, TEST_KEYSPACE, testConfig } from '../support/stores.js';

const SECRET = 'embed-tracing-tests-jwt-secret-0123456789';
const settings = { AUTH_JWT_SECRET: SECRET, CASSANDRA_KEYSPACE: TEST_KEYSPACE };

interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
}

let cassandra: Client;
let server: Server;
let url: string;
const bodies: string[] = [];

beforeAll(async () => {
  cassandra = await connectTestClient(testConfig());
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      bodies.push(Buffer.concat(chunks).toString());
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
});
afterAll(async () => {
  await cassandra?.shutdown();
  server?.close();
});

const hex = (bytes: number) =>
  Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, '0')).join(''); // prettier-ignore

function spansOf(docs: readonly string[]): JsonSpan[] {
  const out: JsonSpan[] = [];
  for (const body of docs) {
    const doc = JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: JsonSpan[] }> }> }; // prettier-ignore
    for (const rs of doc.resourceSpans) for (const ss of rs.scopeSpans) out.push(...ss.spans);
  }
  return out;
}

/** Two posts and one move of the older to the top, the move carrying `traceparent`. */
async function oneMove(host: Hono, traceparent: string) {
  const me = randomProfile();
  const auth = { authorization: `Bearer ${await issueToken(SECRET, me)}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const ids: string[] = [];
  for (const caption of ['a', 'b']) {
    const r = await host.request('/r/v1/me/posts', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ caption }),
    });
    expect(r.status).toBe(201);
    ids.push(((await r.json()) as { post: { id: string } }).post.id);
  }
  const moved = await host.request('/r/v1/me/grid/moves', {
    method: 'POST',
    headers: { ...json, traceparent },
    body: JSON.stringify({ post_id: ids[0], after: null }),
  });
  expect(moved.status).toBe(200);
}

describe("regrid's spans through the host's tracer", () => {
  it('one move is one trace at the host receiver: request, write line, compare-and-set, CQL', async () => {
    const provider = new BasicTracerProvider({
      spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))],
    });
    const regrid = await createRegrid({
      cassandra,
      config: settings,
      tracer: provider.getTracer('regrid'),
    });
    const host = new Hono().route('/r', regrid.app);
    const traceId = hex(16);
    const caller = hex(8);
    await oneMove(host, `00-${traceId}-${caller}-01`);
    await regrid.close();
    await provider.forceFlush();
    await provider.shutdown();

    const inTrace = spansOf(bodies).filter((s) => s.traceId === traceId);
    const childrenOf = (p: JsonSpan) => inTrace.filter((s) => s.parentSpanId === p.spanId);
    // Named by the path the host served it under.
    const request = inTrace.filter((s) => s.name === 'POST /r/v1/me/grid/moves');
    expect(request).toHaveLength(1);
    expect(request[0]!.parentSpanId).toBe(caller);
    const line = childrenOf(request[0]!).find((s) => s.name === 'regrid.write_line');
    expect(line, inTrace.map((s) => s.name).join(', ')).toBeDefined();
    const cas = childrenOf(line!).filter((s) => s.name === 'regrid.cas');
    expect(cas.length).toBeGreaterThanOrEqual(1);
    const statements = cas.flatMap(childrenOf).map((s) => s.name);
    expect(statements).toContain('cassandra BATCH');
  });

  it('without the option nothing is exported', async () => {
    const before = bodies.length;
    const regrid = await createRegrid({ cassandra, config: settings });
    const host = new Hono().route('/r', regrid.app);
    await oneMove(host, `00-${hex(16)}-${hex(8)}-01`);
    await regrid.close();
    await new Promise((r) => setTimeout(r, 200));
    expect(bodies.length).toBe(before);
  });
});
