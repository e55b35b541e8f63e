#!/usr/bin/env node
// `regrid <command>` (npx regrid takedown <post_id>, npx regrid audit [--profile ID]):
// registers tsx's ESM loader and runs the TypeScript CLI, so no build step is needed.
import { register } from 'tsx/esm/api';

register();
await import('../src/tools/cli/regrid.ts');
