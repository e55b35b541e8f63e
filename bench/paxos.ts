/**
 * Paxos v1 against v2 on a PRIVATE local node: the bare conditional-batch ceiling (distinct
 * partitions) and regrid's moves (the `uncontended` load-test scenario, direct mode, checker on)
 * under each variant, side by side with v2/v1 ratios, from one run.
 *
 * One node, switched at run time: it starts with `paxos_variant: v1` in its yaml
 * (CASSANDRA_PAXOS_VARIANT), then the variant is set over JMX before each step
 * (tools/infra/paxos-variant.ts), in the order v1 v2 | v2 v1 | … so that drift on a noisy
 * machine (JIT warm-up, compaction, other work) favours neither. Every step checks the variant
 * with the StorageProxy MBean and `system_views.settings` before and after it; the first also
 * checks the configuration the node logged at start-up. Any mismatch, or any checker violation,
 * exits non-zero. The node is stopped by PID at the end, also on error or Ctrl-C.
 *
 * `npm run bench:paxos -- [--moves 2000] [--rounds 1] [--concurrency 16] [--posts 24] [--warmup N]
 * [--json PATH]` (a first, uncounted warm-up step of min(moves, 1000) unless --warmup 0).
 * Node: REGRID_HOME /tmp/regrid-paxos, CQL 19442, storage 17800, JMX 17900 (never 9042).
 */
import { writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { loadConfig } from '../src/config/config.js';
import { LOCAL_DC, nodeLayout } from '../tools/infra/cassandra-files.js';
import { stopCassandra } from '../tools/infra/cassandra-control.js';
import { probeCql } from '../tools/infra/cql-probe.js';
import { liveNodePid } from '../tools/infra/embedded-cassandra.js';
import {
  loggedPaxosVariant,
  setJmxPaxosVariant,
  verifyPaxosVariant,
  type PaxosVariant,
} from '../tools/infra/paxos-variant.js';
import { commandLineOf } from '../tools/infra/process-utils.js';
import type { LoadtestCluster } from '../tools/loadtest/cluster.js';
import { parseOptions } from '../tools/loadtest/options.js';
import { measureRawCeiling } from '../tools/loadtest/raw-ceiling.js';
import { RegridDirectDesign } from '../tools/loadtest/regrid-direct-design.js';
import { freshProfileIds, runDesign } from '../tools/loadtest/session.js';
import { summarize, tableLines, type Step } from './paxos-table.js';
import { openLocalCassandra } from '../tools/infra/dev-stores.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : dflt;
};
const MOVES = Number(arg('moves', '2000'));
const ROUNDS = Number(arg('rounds', '1'));
const CONCURRENCY = Number(arg('concurrency', '16'));
const POSTS = Number(arg('posts', '24'));
const JSON_PATH = arg('json', '');
// An uncounted first step: the node's and this process's JIT warm up before anything is measured.
const WARMUP = Number(arg('warmup', String(Math.min(MOVES, 1000))));
for (const [k, v, max] of [
  ['moves', MOVES, 20_000],
  ['rounds', ROUNDS, 4],
  ['concurrency', CONCURRENCY, 64],
  ['posts', POSTS, 200],
] as const) {
  if (!Number.isInteger(v) || v < 1 || v > max)
    throw new Error(`--${k} must be an integer in 1..${max}`);
}

// A pair per round, its order alternated: v1 v2 | v2 v1 | v1 v2 …
const ORDER: PaxosVariant[] = Array.from({ length: ROUNDS }, (_, r) =>
  r % 2 === 0 ? (['v1', 'v2'] as const) : (['v2', 'v1'] as const),
).flat();

// Fixed values only: the developer's environment can never point the bench at another node.
const config = loadConfig(
  {},
  {
    NODE_ENV: 'test',
    REGRID_HOME: '/tmp/regrid-paxos',
    CASSANDRA_PORT: '19442',
    CASSANDRA_STORAGE_PORT: '17800',
    CASSANDRA_JMX_PORT: '17900',
    CASSANDRA_HEAP: '1G',
    CASSANDRA_CONTACT_POINTS: '',
    CASSANDRA_KEYSPACE: 'regrid_paxos',
    CASSANDRA_PAXOS_VARIANT: ORDER[0]!,
  },
);
const layout = nodeLayout(config);
const log = (line: string) => process.stderr.write(`[paxos] ${line}\n`);

/** The private node's PID, only if that process is the JVM running from its own folder. */
const privatePid = () => {
  const pid = liveNodePid(layout);
  return pid !== undefined && commandLineOf(pid).includes(layout.nodeDir) ? pid : undefined;
};
async function stopNode(): Promise<void> {
  if (privatePid() === undefined) return;
  log((await stopCassandra(config, 30_000)).detail);
}

const r2 = (x: number) => Math.round(x * 100) / 100;
const r3 = (x: number) => Math.round(x * 1000) / 1000;

async function main(): Promise<number> {
  const ep = { host: '127.0.0.1', port: config.CASSANDRA_PORT, localDataCenter: LOCAL_DC };
  if ((await probeCql(ep)) && privatePid() === undefined) {
    throw new Error(`something that is not the private node answers CQL on ${ep.port}`);
  }
  // Left by an interrupted run: restart it so that its yaml says the first variant.
  await stopNode();
  const loadBefore = loadavg()[0]!;
  const { client, target } = await openLocalCassandra(config, log);
  try {
    log(
      `private node pid ${privatePid()} on 127.0.0.1:${config.CASSANDRA_PORT} (${target.origin})`,
    );
    const logged = loggedPaxosVariant(layout);
    if (logged !== ORDER[0])
      throw new Error(`the node logged paxos_variant=${logged} at start-up, not ${ORDER[0]}`);
    const cluster: LoadtestCluster = {
      client,
      keyspace: config.CASSANDRA_KEYSPACE,
      target,
      releaseVersion: target.releaseVersion ?? 'unknown',
      close: async () => {},
    };
    const deps = {
      config,
      cluster,
      makeDesign: () => RegridDirectDesign.create(client, config),
      log: (l: string) => log(l),
      tableMetrics: false,
    };
    const optionsFor = (moves: number) =>
      parseOptions([
        '--scenario', 'uncontended', '--concurrency', String(CONCURRENCY), '--moves', String(moves),
        '--posts', String(POSTS), '--samples', '2', '--no-progress', '--no-table-metrics',
      ]); // prettier-ignore
    const step = async (variant: PaxosVariant, moves: number): Promise<Step> => {
      await setJmxPaxosVariant(layout, variant);
      const witnesses = await verifyPaxosVariant(layout, client, variant);
      log(`${variant}: MBean ${witnesses.jmx}, system_views.settings ${witnesses.settings}`);
      const run = await runDesign('regrid', optionsFor(moves), deps);
      await run.design.close();
      log(
        `${variant}: ${moves} bare conditional batches, distinct partitions, concurrency ${CONCURRENCY}`,
      );
      const raw = await measureRawCeiling(client, config, {
        batches: moves,
        concurrency: CONCURRENCY,
        profileIds: freshProfileIds(CONCURRENCY),
        posts: POSTS,
      });
      await verifyPaxosVariant(layout, client, variant); // nothing switched it meanwhile
      const r = run.report;
      return {
        variant,
        witnesses,
        raw_ceiling_per_s: r2(raw.perSecond),
        moves_per_s: r.moves_per_s,
        ceiling_ratio: r3(r.moves_per_s / raw.perSecond),
        moves: r.moves,
        move_p50_ms: r.move_p50_ms,
        move_p99_ms: r.move_p99_ms,
        cas_attempts_per_move: r.cas_attempts_per_move,
        violations: r.violations.length,
      };
    };
    const warmup = WARMUP > 0 ? await step(ORDER[0]!, WARMUP) : null;
    if (warmup) log(`warm-up (not counted): ${JSON.stringify(warmup)}`);
    const steps: Step[] = [];
    for (const variant of ORDER) steps.push(await step(variant, MOVES));
    const summary = summarize(steps);
    const machine = {
      cores: availableParallelism(),
      cpu: cpus()[0]?.model ?? 'unknown',
      cassandra: target.releaseVersion,
      load_avg_1m: { before: r2(loadBefore), after: r2(loadavg()[0]!) },
    };
    console.log(
      `Paxos v1 vs v2 — one private node (${machine.cassandra}, heap ${config.CASSANDRA_HEAP}), uncontended: ${CONCURRENCY} writers on ${CONCURRENCY} profiles × ${POSTS} posts, ${MOVES} moves and ${MOVES} bare batches per step; ${machine.cores} cores, load ${machine.load_avg_1m.before} → ${machine.load_avg_1m.after}`,
    );
    for (const line of tableLines(steps, summary)) console.log(line);
    if (JSON_PATH) {
      const json = {
        machine,
        logged_at_start: logged,
        order: ORDER,
        warmup,
        steps,
        ...summary,
      };
      await writeFile(JSON_PATH, JSON.stringify(json, null, 2) + '\n');
      log(`JSON report: ${JSON_PATH}`);
    }
    const violations = [...steps, ...(warmup ? [warmup] : [])].reduce(
      (n, s) => n + s.violations,
      0,
    );
    if (violations > 0) log(`${violations} checker violation(s): see the table`);
    return violations > 0 ? 1 : 0;
  } finally {
    await client.shutdown();
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping the private node`);
    void stopNode().finally(() => process.exit(130));
  });
}

main()
  .catch((err: unknown) => {
    log(`failed: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  })
  .then(async (code) => {
    await stopNode().catch((err: unknown) => log(`could not stop the node: ${String(err)}`));
    process.exit(code);
  });
