import { app, BrowserWindow, dialog, ipcMain } from 'electron'
import { join } from 'node:path'
import { airlockContract } from '@shared/ipc'
import { createHost, startHostGateway, type Host } from './host'
import type { AgentGateway } from './gateway'
import { registerElectronIpc } from './app/electron-ipc'
import { createMainWindow, rendererEntry } from './app/main-window'
import { holdQuitUntilDisposed } from './app/shutdown'
import { startDesktopAttention } from './app/desktop-attention'

// The desktop shell: one host, one secure window, IPC from the contract. Wiring only.
const buildDir = join(__dirname, '..')
let host: Host | undefined
let gateway: AgentGateway | undefined
let disposeIpc: (() => void) | undefined
let disposeAttention: (() => void) | undefined

if (!app.requestSingleInstanceLock()) app.quit()

async function start(): Promise<void> {
  host = createHost({ sqliteBinding: process.env.AIRLOCK_SQLITE_BINDING || undefined, confirmHostRun })
  if (host.homeProblem) console.error(`airlock: warning: commands cannot run in sandboxes on this home: ${host.homeProblem}`)
  await host.recovered
  const trustedUrl = rendererEntry(buildDir).url
  disposeIpc = registerElectronIpc({
    ipcMain,
    contract: airlockContract,
    dispatch: host.dispatch,
    subscribe: (listener) => host!.events.subscribe(listener),
    isTrustedSender: (event) => event.senderFrame?.url.split('#')[0] === trustedUrl,
    targets: () => BrowserWindow.getAllWindows().map((w) => w.webContents)
  })
  const window = () => BrowserWindow.getAllWindows()[0] ?? createMainWindow(buildDir)
  window()
  app.on('activate', () => void window())
  // The tray's pending count and a notification per new approval; clicks open #/approvals.
  disposeAttention = startDesktopAttention({
    pending: () => host!.approvals.list(),
    subscribe: (listener) => host!.events.subscribe(listener),
    window,
    iconPath: join(buildDir, '..', 'resources', 'icon.png'),
    log: (message, error) => console.error(message, error ?? '')
  })
  // The console stays usable when the gateway cannot start (its port taken): the error says which setting to change.
  gateway = await startHostGateway(host).catch((error: unknown) => {
    console.error(`Airlock: the agent gateway did not start: ${error instanceof Error ? error.message : String(error)}`)
    return undefined
  })
}

/** A native dialog, which no web page can answer: asked before an MCP server is marked `unsafe`. */
async function confirmHostRun(question: { title: string; detail: string }): Promise<boolean> {
  const options = {
    type: 'warning' as const,
    buttons: ['Cancel', 'Run it on the host'],
    defaultId: 0,
    cancelId: 0,
    message: question.title,
    detail: question.detail
  }
  const parent = BrowserWindow.getFocusedWindow()
  const { response } = parent ? await dialog.showMessageBox(parent, options) : await dialog.showMessageBox(options)
  return response === 1
}

app
  .whenReady()
  .then(start)
  .catch((error: unknown) => {
    console.error(`Airlock could not start: ${error instanceof Error ? error.message : String(error)}`)
    app.exit(1)
  })

app.on('second-instance', () => BrowserWindow.getAllWindows()[0]?.focus())
app.on('window-all-closed', () => app.quit())
holdQuitUntilDisposed(app, {
  dispose: async () => {
    disposeAttention?.()
    disposeIpc?.()
    await gateway?.close()
    await host?.dispose()
  },
  log: (message, error) => console.error(message, error ?? '')
})
