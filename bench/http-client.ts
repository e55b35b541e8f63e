/**
 * `npx tsx bench/http-client.ts [--requests 20000] [--rounds 2]`: what one request costs the load
 * tester's own process, by HTTP client: the load tester's (`tools/loadtest/http-call.ts`: the
 * lean keep-alive client of http-wire.ts) against undici pools and `node:http` with a keep-alive
 * Agent, 16 concurrent senders each waiting
 * for its answer, small JSON POSTs like a move, against a bare `node:http` server in a child
 * process (so none of the server's work is counted). The load generator shares the machine's
 * cores with what it measures, so its CPU per request is taken from the figures. Prints client
 * CPU µs per request and requests/s per client and round, the order swapping each round.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { closeHttpPools, httpCall, undiciCall } from '../tools/loadtest/http-call.js';

if (process.argv[2] === 'serve') {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"grid_version":"123","move_id":"0190a1b2-c3d4-8e5f-9a0b-1c2d3e4f5a6b"}');
    });
  }).listen(0, '127.0.0.1', () => process.send!((server.address() as AddressInfo).port));
} else {
  const { values: args } = parseArgs({
    options: {
      requests: { type: 'string', default: '20000' },
      rounds: { type: 'string', default: '2' },
    },
  });
  const N = Number(args.requests);
  const child = fork(new URL(import.meta.url).pathname, ['serve'], {
    execArgv: ['--import', 'tsx'],
  });
  const [port] = (await once(child, 'message')) as [number];
  const url = `http://127.0.0.1:${port}/v1/me/grid/moves`;
  const body = JSON.stringify({ post_id: '4213798332335651844', after: '4213798332335651845' });
  const headers = {
    authorization: `Bearer ${'x'.repeat(160)}`,
    'content-type': 'application/json',
  };
  const agent = new Agent({ keepAlive: true });
  const viaNodeHttp = () =>
    new Promise<string>((resolve, reject) => {
      const req = request(
        url,
        {
          method: 'POST',
          agent,
          headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const viaLoadTester = () => httpCall(url, 'POST', headers, body, 10_000).then((r) => r.text);
  const viaUndici = () => undiciCall(url, 'POST', headers, body, 10_000).then((r) => r.text);
  const clients = [
    { name: 'load tester (lean, http-wire.ts)', send: viaLoadTester },
    { name: 'undici Pool', send: viaUndici },
    { name: 'node:http + Agent', send: viaNodeHttp },
  ];
  try {
    console.log(`${N} POSTs per step, 16 concurrent senders`);
    console.log('round | client | client CPU µs/request | requests/s');
    for (let r = 1; r <= Number(args.rounds); r++) {
      for (const c of r % 2 === 1 ? clients : [...clients].reverse()) {
        let left = N;
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        await Promise.all(
          Array.from({ length: 16 }, async () => {
            while (left-- > 0) await c.send();
          }),
        );
        const cpu = process.cpuUsage(cpu0);
        const us = (cpu.user + cpu.system) / N;
        const perS = (N / (performance.now() - t0)) * 1000;
        console.log(`${r} | ${c.name} | ${us.toFixed(1)} | ${perS.toFixed(0)}`);
      }
    }
  } finally {
    agent.destroy();
    await closeHttpPools();
    child.kill();
  }
}
