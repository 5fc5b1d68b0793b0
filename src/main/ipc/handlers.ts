import type { AirlockContract } from '@shared/ipc'
import type { SettingsService } from '../console/settings-service'
import type { ContractHandlers } from './call-dispatcher'

/** What the handlers need from the host. */
export type HandlerServices = {
  settings: SettingsService
  system: { appVersion: string; home: string; databasePath: string }
}

/** The contract's handlers: each one line or two that call a service. */
export function createContractHandlers(services: HandlerServices): ContractHandlers<AirlockContract> {
  return {
    system: {
      info: (_input, context) => ({
        ...services.system,
        transport: context.transport,
        platform: `${process.platform}-${process.arch}`,
        nodeVersion: process.versions.node
      })
    },
    settings: {
      list: () => services.settings.list(),
      get: ({ key }) => services.settings.view(key),
      set: ({ key, value }) => services.settings.set(key, value as never),
      reset: ({ key }) => services.settings.reset(key)
    }
  }
}
