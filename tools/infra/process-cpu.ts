/**
 * CPU time a local process has used, for benchmarks that split a move's cost between Node and
 * the Cassandra node's JVM on one machine (bench/move-cpu.ts, bench/cas-cost.ts).
 */
import { readFileSync } from 'node:fs';

/** Linux's USER_HZ: /proc counts CPU time in ticks of 10 ms. */
const MS_PER_TICK = 10;

/**
 * User + system CPU milliseconds of `pid` so far (fields 14 and 15 of /proc/PID/stat, counted
 * after the command name, which may itself hold spaces); 0 without a pid.
 */
export function processCpuMs(pid: number | undefined): number {
  if (pid === undefined) return 0;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
}
