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
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src/main/index.ts'),
          cli: resolve(__dirname, 'src/main/cli/index.ts')
        }
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
