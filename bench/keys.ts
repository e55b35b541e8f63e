/**
 * npm run bench:keys [-- --json PATH] [--seed N] [--seeds N]
 * npm run bench:keys -- --adversary [--json PATH] [--moves N] [--property-moves N]
 *
 * Deterministic benchmark of sort-key schemes. Without --adversary: the friendly workloads
 * (bench/keys/friendly-main.ts), side-by-side tables, the peer figures the article quotes, a
 * multi-seed check of the random workload, and the project's targets. With --adversary: the
 * adversaries of bench/keys/adversaries.ts at 10^3-10^5 posts, the old adaptive policy next to the
 * default under its row cap, and the amortized bound's check over a long mixed run
 * (bench/keys/adversary-main.ts). Same seed, same numbers, on any machine; exits non-zero when a
 * target is missed.
 */
import { adversaryMain } from './keys/adversary-main.js';
import { friendlyMain } from './keys/friendly-main.js';

if (process.argv.includes('--adversary')) adversaryMain();
else friendlyMain();
