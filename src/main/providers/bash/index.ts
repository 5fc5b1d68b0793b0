// The host command runner (SPEC §4 `bash`): the provider and the names callers match on.
export { BashProvider, hostIsolation } from './bash-provider'
export { defaultAllowedPrefixes } from './command-allowlist'
export { CommandRefusedError } from './command-line'
