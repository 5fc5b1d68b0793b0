export { createHost, type Host, type HostConfig } from './create-host'
export { gatewayDeps, startHostGateway } from './host-gateway'
export { airlockPaths, resolveHome, HomeUnavailableError, type AirlockPaths } from './paths'
