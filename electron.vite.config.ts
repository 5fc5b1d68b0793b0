import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import react from '@vitejs/plugin-react'

const shared = { '@shared': resolve(__dirname, 'src/shared') }

// Main builds two entries: the Electron shell (index) and the `airlock` CLI, which also hosts
// the headless web console (`airlock serve`). The preload is bundled whole (zod included)
// because a sandboxed preload can only require `electron`.
export default defineConfig({
  main: {
    resolve: { alias: shared },
    build: {
      // zod and the MCP SDK are bundled, not required from node_modules: zod's CommonJS entry
      // loads every locale (~80 ms of each CLI command's start), and the SDK would load a second
      // zod of its own (~4 MB of an idle console); bundled, one zod, only what is used kept.
      externalizeDeps: { exclude: ['zod', '@modelcontextprotocol/sdk'] },
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src/main/index.ts'),
          cli: resolve(__dirname, 'src/main/cli/index.ts')
        },
        // A module nothing is imported from is left out, though it has top-level calls (zod
        // schemas, tables): the folders' index files re-export whole layers, and without this
        // every CLI command loaded the host, its providers and the browser driver (issue 29).
        // Safe because no module here is imported for its side effects alone (no `import './x'`;
        // lint forbids it: see eslint.config.mjs).
        treeshake: { moduleSideEffects: false }
      }
    }
  },
  preload: {
    resolve: { alias: shared },
    build: { externalizeDeps: false }
  },
  renderer: {
    resolve: { alias: { ...shared, '@renderer': resolve(__dirname, 'src/renderer/src') } },
    plugins: [react()]
  }
})
