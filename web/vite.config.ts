// The editor imports the client package by its name, as any consumer would; here it resolves to
// the package's sources (client/src), so the editor always runs the current client without a
// build of the package first. `vite build web` and the browser tests' build() both read this.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  resolve: {
    alias: {
      '@regrid/client': fileURLToPath(new URL('../client/src/index.ts', import.meta.url)),
    },
  },
});
