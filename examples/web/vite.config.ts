/**
 * Builds the example page (examples/web) into dist/web, which the gateway serves at /demo in
 * demo mode (`npm run build` runs this). `npx vite --config examples/web/vite.config.ts` serves it
 * with live reload on :5173 and forwards /graphql to a gateway on :4000 (`npm start`).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/demo/',
  build: {
    outDir: fileURLToPath(new URL('../../dist/web', import.meta.url)),
    // The output is outside the page's root, so vite would not empty it unless told to.
    emptyOutDir: true,
  },
  server: {
    proxy: { '/graphql': 'http://localhost:4000' },
  },
});
