/**
 * OpenTelemetry traces end to end (docs/operating.md "Tracing"): the service process (src/main.ts,
 * spawned as in production) with the standard OTEL_* variables pointing at a real OTLP/HTTP
 * receiver (a node:http server here), one move with an incoming W3C `traceparent`. With
 * http/json the receiver parses the spans and the test checks the tree: the HTTP request span →
 * the write line's turn → the compare-and-set attempt (its outcome attribute) → its CQL batch,
 * then a page read's CQL spans under its request span;
 * with http/protobuf, that the protobuf export carries the incoming trace ID; with OTEL unset,
 * that nothing is exported and the SDK module was never loaded.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { REGRID_EPOCH_MS, TIMESTAMP_SHIFT } from '../../../src/domain/ids.js';
import { issueToken } from '../../../src/http/auth.js';
import { TEST_KEYSPACE } from '../support/stores.js';

const SECRET = 'tracing-test-jwt-secret-0123456789abcdef';
const PROFILE = 770_001n;
const children: ChildProcess[] = [];
const servers: Server[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL'); // ours, by handle
  for (const s of servers) s.close();
});

interface Received {
  readonly contentType: string;
  readonly body: Buffer;
}

/** A real OTLP/HTTP receiver: POST /v1/traces, answered 200 with an empty export response. */
async function receiver(): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        const contentType = req.headers['content-type'] ?? '';
        received.push({ contentType, body: Buffer.concat(chunks) });
        const json = contentType.includes('json');
        res.writeHead(200, {
          'content-type': json ? 'application/json' : 'application/x-protobuf',
        });
        res.end(json ? '{}' : Buffer.alloc(0));
      } else {
        res.writeHead(404).end();
      }
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

async function startService(env: Record<string, string>) {
  const base = { ...process.env };
  for (const k of Object.keys(base)) if (k.startsWith('OTEL_')) delete base[k];
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/integration/obs/trace-child.ts'],
    {
      env: {
        ...base,
        NODE_ENV: 'test',
        CASSANDRA_KEYSPACE: TEST_KEYSPACE,
        PORT: '0',
        AUTH_JWT_SECRET: SECRET,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let output = '';
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line:\n${output}`)), 90_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:[0-9]+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then((code) => reject(new Error(`exited ${code}:\n${output}`)));
  });
  return { url, stop: async () => (child.kill('SIGTERM'), await exited), output: () => output };
}

/** Two posts, then one move of the older to the top with `traceparent` set. */
async function oneMove(url: string, traceparent: string): Promise<void> {
  const token = await issueToken(SECRET, PROFILE);
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const ids: string[] = [];
  for (const caption of ['one', 'two']) {
    const r = await fetch(`${url}/v1/me/posts`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ caption }),
    });
    expect(r.status).toBe(201);
    ids.push(((await r.json()) as { post: { id: string } }).post.id);
  }
  const moved = await fetch(`${url}/v1/me/grid/moves`, {
    method: 'POST',
    headers: { ...auth, traceparent },
    body: JSON.stringify({ post_id: ids[0], after: null }),
  });
  expect(moved.status).toBe(200);
}

interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: Array<{ key: string; value: Record<string, unknown> }>;
}

const attr = (s: JsonSpan, key: string) => {
  const v = s.attributes?.find((a) => a.key === key)?.value;
  return v ? Object.values(v)[0] : undefined;
};

const randomHex = (bytes: number) =>
  Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, '0')).join(''); // prettier-ignore

describe('OpenTelemetry traces', () => {
  it('http/json: one move keeps the incoming trace ID, request → write line → CAS → CQL', async () => {
    const otlp = await receiver();
    const svc = await startService({
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_SERVICE_NAME: 'regrid-under-test',
    });
    const traceId = randomHex(16);
    const callerSpan = randomHex(8);
    await oneMove(svc.url, `00-${traceId}-${callerSpan}-01`);
    // Then the first page (a cache miss: the move dropped the cached one), traced on its own.
    const readTrace = randomHex(16);
    const readCaller = randomHex(8);
    const page = await fetch(`${svc.url}/v1/profiles/${PROFILE}/grid`, {
      headers: { traceparent: `00-${readTrace}-${readCaller}-01` },
    });
    expect(page.status).toBe(200);
    expect(await svc.stop()).toBe(0); // the shutdown flushes the batch processor
    expect(svc.output()).toContain('[tracing] OTLP traces on (http/json)');
    expect(svc.output()).toContain('[trace-child] sdk loaded: true'); // the detector detects

    expect(otlp.received.length).toBeGreaterThan(0);
    const spans: JsonSpan[] = [];
    const services = new Set<unknown>();
    for (const r of otlp.received) {
      expect(r.contentType).toContain('application/json');
      const doc = JSON.parse(r.body.toString()) as {
        resourceSpans: Array<{
          resource: { attributes: JsonSpan['attributes'] };
          scopeSpans: Array<{ spans: JsonSpan[] }>;
        }>;
      };
      for (const rs of doc.resourceSpans) {
        services.add(rs.resource.attributes?.find((a) => a.key === 'service.name')?.value.stringValue); // prettier-ignore
        for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      }
    }
    expect([...services]).toEqual(['regrid-under-test']);
    const inTrace = spans.filter((s) => s.traceId === traceId);
    const byId = new Map(inTrace.map((s) => [s.spanId, s]));
    const childrenOf = (p: JsonSpan) => inTrace.filter((s) => s.parentSpanId === p.spanId);

    // The request span: the caller's span is its parent.
    const request = inTrace.filter((s) => s.name === 'POST /v1/me/grid/moves');
    expect(request).toHaveLength(1);
    expect(request[0]!.parentSpanId).toBe(callerSpan);
    expect(attr(request[0]!, 'http.response.status_code')).toBe(200);
    // Its write line turn, the queue wait, and one applied CAS attempt with its batch.
    const kids = childrenOf(request[0]!).map((s) => s.name);
    expect(kids).toContain('regrid.write_line');
    expect(kids).toContain('regrid.write_line.queue_wait');
    const line = childrenOf(request[0]!).find((s) => s.name === 'regrid.write_line')!;
    expect(attr(line, 'regrid.profile_id')).toBe(String(PROFILE));
    const lineKids = childrenOf(line);
    expect(lineKids.map((s) => s.name)).toContain('regrid.write_line.plan');
    const cas = lineKids.filter((s) => s.name === 'regrid.cas');
    expect(cas).toHaveLength(1);
    expect(attr(cas[0]!, 'regrid.cas.applied')).toBe(true);
    expect(attr(cas[0]!, 'regrid.cas.attempt')).toBe(1);
    const batch = childrenOf(cas[0]!);
    expect(batch.map((s) => s.name)).toEqual(['cassandra BATCH']);
    expect(attr(batch[0]!, 'db.system.name')).toBe('cassandra');
    expect(attr(batch[0]!, 'db.cassandra.applied')).toBe(true);
    // Every span of the trace hangs off the caller's span (no broken parent link).
    for (const s of inTrace) {
      if (s !== request[0]) expect(byId.has(s.parentSpanId!)).toBe(true);
    }
    // The request's other statements (the planner's reads, the idempotency record…) are CQL
    // spans of the same trace; its Redis commands too (the cache refill after the commit).
    expect(inTrace.filter((s) => s.name.startsWith('cassandra ')).length).toBeGreaterThan(1);
    expect(inTrace.filter((s) => s.name.startsWith('redis ')).length).toBeGreaterThan(0);
    // The posts created before were their own traces (no traceparent: new trace IDs).
    const creates = spans.filter((s) => s.name === 'POST /v1/me/posts');
    expect(creates).toHaveLength(2);
    for (const c of creates) expect(c.traceId).not.toBe(traceId);
    // The page read's statements name the request's scope, so they are CQL spans under its span.
    const read = spans.filter((s) => s.traceId === readTrace && s.parentSpanId === readCaller);
    expect(read).toHaveLength(1);
    const readCql = spans.filter(
      (s) => s.parentSpanId === read[0]!.spanId && s.name.startsWith('cassandra SELECT'),
    );
    expect(readCql.length).toBeGreaterThan(1); // at least the head and the time-ordered rows
  }, 150_000);

  it('http/protobuf: the export is protobuf and carries the incoming trace ID', async () => {
    const otlp = await receiver();
    const svc = await startService({
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    });
    const traceId = randomHex(16);
    await oneMove(svc.url, `00-${traceId}-${randomHex(8)}-01`);
    expect(await svc.stop()).toBe(0);
    expect(otlp.received.length).toBeGreaterThan(0);
    for (const r of otlp.received) expect(r.contentType).toBe('application/x-protobuf');
    const all = Buffer.concat(otlp.received.map((r) => r.body));
    // trace_id is a 16-byte field; the span names are strings in the payload.
    expect(all.includes(Buffer.from(traceId, 'hex'))).toBe(true);
    expect(all.includes(Buffer.from('regrid.cas.applied'))).toBe(true);
  }, 150_000);

  it('regrid import: one trace, a span per chunk with its write line and CAS under it', async () => {
    const otlp = await receiver();
    const base = { ...process.env };
    for (const k of Object.keys(base)) if (k.startsWith('OTEL_')) delete base[k];
    const profile = 770_100n + BigInt(Date.now() % 100_000);
    const at = BigInt(Date.now() - 3_600_000 - REGRID_EPOCH_MS) << TIMESTAMP_SHIFT;
    const lines = [0n, 1n, 2n].map((i) =>
      JSON.stringify({ profile_id: String(profile), post_id: String(at + (i << 10n) + i) }),
    );
    const child = spawn(process.execPath, ['--import', 'tsx', 'tools/cli.ts', 'import', '--from-ndjson', '-'], {
      env: {
        ...base,
        NODE_ENV: 'test',
        CASSANDRA_KEYSPACE: TEST_KEYSPACE,
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    }); // prettier-ignore
    children.push(child);
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    child.stdin!.end(lines.join('\n') + '\n');
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    expect(code, output).toBe(0);
    const spans: JsonSpan[] = [];
    for (const r of otlp.received) {
      const doc = JSON.parse(r.body.toString()) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: JsonSpan[] }> }>;
      };
      for (const rs of doc.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
    }
    const root = spans.filter((s) => s.name === 'regrid.import');
    expect(root).toHaveLength(1);
    expect(attr(root[0]!, 'regrid.import.imported')).toBe(3);
    const inTrace = spans.filter((s) => s.traceId === root[0]!.traceId);
    const chunks = inTrace.filter((s) => s.name === 'regrid.import.chunk');
    expect(chunks.length).toBeGreaterThan(0);
    for (const c of chunks) expect(c.parentSpanId).toBe(root[0]!.spanId);
    const lineSpans = inTrace.filter((s) => s.name === 'regrid.write_line');
    expect(lineSpans.length).toBeGreaterThan(0);
    const chunkIds = new Set(chunks.map((c) => c.spanId));
    for (const l of lineSpans) expect(chunkIds.has(l.parentSpanId!)).toBe(true);
    const cas = inTrace.filter((s) => s.name === 'regrid.cas');
    expect(cas.some((s) => attr(s, 'regrid.cas.applied') === true)).toBe(true);
  }, 150_000);

  it('off by default: nothing exported, the SDK module never loaded', async () => {
    const otlp = await receiver();
    // OTEL_* unset (startService drops them), except where the exporter would send if it ran.
    const svc = await startService({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url });
    await oneMove(svc.url, `00-${randomHex(16)}-${randomHex(8)}-01`);
    expect(await svc.stop()).toBe(0);
    expect(svc.output()).not.toContain('[tracing]');
    expect(svc.output()).toContain('[trace-child] sdk loaded: false');
    expect(otlp.received).toHaveLength(0);
  }, 150_000);
});
