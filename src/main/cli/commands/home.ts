import { airlockPaths, resolveHome } from '../../host/paths'
import { moveHome } from '../../host/home-move'
import { sandboxReachProblem } from '../../core'
import { defineCommand } from '../command'
import { UsageError } from '../cli-error'

/**
 * `airlock home`: where this home is (and whether sandboxes can reach it); `airlock home move DIR`
 * moves it, agents, tokens and history kept (see `moveHome`). After a move to anything but the
 * default home, it says how to start Airlock there.
 */
export const homeCommand = defineCommand({
  name: 'home',
  usage: 'airlock home [--home DIR] | airlock home move DIR [--home DIR]',
  options: {},
  async run({ options, positionals }, io) {
    const home = resolveHome(options.home)
    if (positionals.length === 0) {
      io.out(home)
      const problem = sandboxReachProblem(airlockPaths(home).workspaces)
      if (problem) io.err(`airlock: warning: ${problem}`)
      return 0
    }
    if (positionals[0] !== 'move' || positionals.length !== 2) throw new UsageError('usage: airlock home move DIR')
    const moved = moveHome(home, positionals[1]!)
    io.out(`moved ${home} to ${moved}`)
    const defaultHome = resolveHome(undefined, { ...process.env, AIRLOCK_HOME: undefined })
    if (moved !== defaultHome) io.out(`start Airlock with AIRLOCK_HOME=${moved} (or --home ${moved})`)
    const problem = sandboxReachProblem(airlockPaths(moved).workspaces)
    if (problem) io.err(`airlock: warning: ${problem}`)
    return 0
  }
})
