/**
 * The package's entry (`import { createRegrid } from '@regrid/server'`): regrid embedded in a
 * host's Hono app over the host's Cassandra and Redis connections (src/embed.ts,
 * docs/embedding.md).
 */
export { createRegrid, type HostRedis, type Regrid, type RegridOptions } from './embed.js';
export type { GridService } from './service/grid-service.js';
export type { Config } from './config/config.js';
