import { join } from 'node:path'
import type { EgressPort, ExecutionResourceProvider, SettingsReader } from '../core'
import { RunLedger } from './runner/run-ledger'
import type { ImageProgress } from './docker/docker-images'
import { BashProvider } from './bash/bash-provider'
import { BrowserProvider } from './browser/browser-provider'
import { BubblewrapProvider } from './bubblewrap/bubblewrap-provider'
import { DockerProvider } from './docker/docker-provider'
import { GvisorProvider } from './gvisor/gvisor-provider'
import { McpProvider } from './mcp/mcp-provider'
import { SqliteProvider } from './sqlite/sqlite-provider'
import { TrustedLocalProvider } from './trusted-local/trusted-local-provider'
import { VectorStoreProvider } from './vector-store/vector-store-provider'

export type { CommandResult, CommandRunInput, CommandRunner, ProgramRunInput, ProgramRunner } from '../core'
export { BashProvider } from './bash/bash-provider'
export { CommandRefusedError } from './bash/command-line'
export { BrowserProvider } from './browser/browser-provider'
export { BrowserSession, NavigationBlockedError, type BrowserVisit } from './browser/browser-session'
export { BubblewrapProvider } from './bubblewrap/bubblewrap-provider'
export { deniedSyscalls } from '../core/sandbox/syscall-denylist'
export { GvisorProvider } from './gvisor/gvisor-provider'
export { DockerProvider, type DockerProviderOptions } from './docker/docker-provider'
export { checkEngine, createDockerClient } from './docker/docker-engine'
export { airlockImage, listAirlockImages, resolveImage, type ImageProgress, type ImageSummary } from './docker/docker-images'
export { provisionImages, languagePackages } from './docker/offline-provisioning'
export { McpProvider, type McpProviderOptions } from './mcp/mcp-provider'
export { McpConnection, type UpstreamTool } from './mcp/mcp-connection'
export { SqliteProvider } from './sqlite/sqlite-provider'
export { SqliteConnection, type SqliteQueryResult } from './sqlite/sqlite-connection'
export { TrustedLocalProvider } from './trusted-local/trusted-local-provider'
export { VectorStoreProvider, type VectorStoreProviderOptions, vectorStoreConfigSchema } from './vector-store/vector-store-provider'
export { WorkspaceBoundaryError } from '../core/sandbox/workspace-paths'
export { ProviderError, type ProviderErrorCode } from '../core/provider-error'

/**
 * Every built-in provider, in the order used when no provider order is configured for a kind
 * (SPEC §4.1). The Docker provider follows DOCKER_HOST like the docker CLI. Host runs record their
 * process groups under `<home>/runs` so that start-up recovery can end what a crash left.
 * `settings` is part of the SPEC §4.1 signature; no built-in provider reads settings (their
 * config comes with each requirement; the manager reads `code_execution.providers`).
 */
export function createBuiltinProviders(options: {
  home: string
  settings?: SettingsReader
  onImageProgress?: (progress: ImageProgress) => void
  egress?: EgressPort
}): ExecutionResourceProvider[] {
  const runLedger = new RunLedger(join(options.home, 'runs'))
  return [
    new BubblewrapProvider({ runLedger, egress: options.egress }),
    new GvisorProvider({ home: options.home, runLedger }),
    new DockerProvider({ home: options.home, onImageProgress: options.onImageProgress, egress: options.egress }),
    new TrustedLocalProvider({ runLedger }),
    new BashProvider({ runLedger }),
    new SqliteProvider(),
    new BrowserProvider(),
    new McpProvider({ home: options.home, runLedger, egress: options.egress }),
    new VectorStoreProvider({ home: options.home })
  ]
}
