import { contextBridge, ipcRenderer } from 'electron'
import { airlockContract, buildContractApi, parseChannel } from '@shared/ipc'

// Exposes exactly one object, window.airlock, with one method per contract call and one
// onX(cb) → unsubscribe per contract event. Nothing generic crosses the bridge.
const api = buildContractApi(airlockContract, {
  invoke: (channel, input) => {
    if (!parseChannel(channel)) throw new Error(`refused channel ${channel}`)
    return ipcRenderer.invoke(channel, input)
  },
  subscribe: (channel, listener) => {
    if (!parseChannel(channel)) throw new Error(`refused channel ${channel}`)
    const handler = (_event: Electron.IpcRendererEvent, payload: unknown) => listener(payload)
    ipcRenderer.on(channel, handler)
    return () => ipcRenderer.removeListener(channel, handler)
  }
})

contextBridge.exposeInMainWorld('airlock', api)
