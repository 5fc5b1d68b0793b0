import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron'
import { channelOf, type NamespaceSpec } from '@shared/ipc'
import { contractErrorCodes, fail } from '@shared/result'
import type { CallDispatcher, ContractEventListener } from '../ipc'

/** What the Electron transport needs: the dispatcher, the event feed, and who may call. */
export type ElectronIpcOptions = {
  ipcMain: IpcMain
  contract: Record<string, NamespaceSpec>
  dispatch: CallDispatcher
  subscribe: (listener: ContractEventListener) => () => void
  /** True only for frames that show our own renderer. */
  isTrustedSender: (event: IpcMainInvokeEvent) => boolean
  /** The windows that receive events. */
  targets: () => WebContents[]
}

/**
 * Registers one `ipcMain.handle` per contract call (never a generic channel) and forwards
 * contract events to our windows. Returns the disposer that removes all of it.
 */
export function registerElectronIpc(options: ElectronIpcOptions): () => void {
  const channels: string[] = []
  for (const [namespace, spec] of Object.entries(options.contract)) {
    for (const call of Object.keys(spec.calls)) {
      const channel = channelOf(namespace, call)
      channels.push(channel)
      options.ipcMain.handle(channel, (event, input: unknown) =>
        options.isTrustedSender(event)
          ? options.dispatch(channel, input, { transport: 'electron' })
          : fail(contractErrorCodes.forbidden, 'This frame may not call Airlock.')
      )
    }
  }
  const unsubscribe = options.subscribe((channel, payload) => {
    for (const target of options.targets()) if (!target.isDestroyed()) target.send(channel, payload)
  })
  return () => {
    unsubscribe()
    for (const channel of channels) options.ipcMain.removeHandler(channel)
  }
}
