/** When tracing is on and which OTLP protocol it uses (src/obs/tracing.ts), from OTEL_* alone. */
import { describe, expect, it } from 'vitest';
import {
  otlpProtocolOf,
  startSpan,
  startTracing,
  tracingWanted,
} from '../../../src/obs/tracing.js';

describe('tracingWanted', () => {
  it('is off unless OTEL_TRACES_EXPORTER names otlp', () => {
    expect(tracingWanted({})).toBe(false);
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: 'console' })).toBe(false);
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: ' console , OTLP ' })).toBe(true);
  });
  it('OTEL_SDK_DISABLED=true wins', () => {
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'false' })).toBe(true);
  });
});

describe('otlpProtocolOf', () => {
  it('defaults to http/protobuf; the traces variable wins over the general one', () => {
    expect(otlpProtocolOf({})).toBe('http/protobuf');
    expect(otlpProtocolOf({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBe('http/json');
    expect(
      otlpProtocolOf({
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      }),
    ).toBe('http/protobuf');
  });
  it('refuses grpc and anything else', () => {
    expect(() => otlpProtocolOf({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/not supported/);
  });
});

describe('off', () => {
  it('starts nothing and makes no span', async () => {
    expect(await startTracing('test', {})).toBeUndefined();
    expect(startSpan('x', undefined)).toBeUndefined();
  });
});
