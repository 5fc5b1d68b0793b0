import type { IsolationFacts } from '../../core'

/** What a bubblewrap sandbox enforces: all four axes, with the network it was given. */
export function bubblewrapIsolation(networkMode: IsolationFacts['networkMode']): IsolationFacts {
  return {
    processContained: true,
    hostFilesystemRestricted: true,
    privilegeEscalationBlocked: true,
    syscallsRestricted: true,
    mechanism: 'bubblewrap',
    networkMode
  }
}
