import { BrowserWindow, session, shell } from 'electron'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

/** The renderer's entry file, and the URL a trusted frame must show. */
export function rendererEntry(buildDir: string): { file: string; url: string } {
  const file = join(buildDir, 'renderer', 'index.html')
  return { file, url: pathToFileURL(file).toString() }
}

/**
 * Creates the console window with the house security defaults: context isolation, sandbox,
 * no node integration, no navigation away, no new windows (http(s) links open in the browser),
 * every permission request denied.
 */
export function createMainWindow(buildDir: string): BrowserWindow {
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false))
  session.defaultSession.setPermissionCheckHandler(() => false)
  const window = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: 'Airlock',
    backgroundColor: '#0f1115',
    icon: join(buildDir, '..', 'resources', 'icon.png'),
    webPreferences: {
      preload: join(buildDir, 'preload', 'index.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false
    }
  })
  const entry = rendererEntry(buildDir)
  window.webContents.setWindowOpenHandler(({ url }) => {
    openExternal(url)
    return { action: 'deny' }
  })
  window.webContents.on('will-navigate', (event, url) => {
    if (url.split('#')[0] !== entry.url) event.preventDefault()
  })
  window.webContents.on('will-attach-webview', (event) => event.preventDefault())
  window.once('ready-to-show', () => window.show())
  void window.loadFile(entry.file)
  return window
}

function openExternal(url: string): void {
  try {
    const parsed = new URL(url)
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') void shell.openExternal(parsed.toString())
  } catch {
    // Not a URL: nothing to open.
  }
}
