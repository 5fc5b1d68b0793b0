export { createHost, type Host, type HostConfig } from './create-host'
export {
  airlockPaths,
  resolveHome,
  HomeUnavailableError,
  type AirlockPaths
} from './paths'
